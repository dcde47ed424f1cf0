import { EXIT_CODES } from '../../errors.ts'
import { parseServeArgv } from '../serve-argv.ts'
import { runSweepServe } from '../sweep/run-sweep.ts'
import type { ServerProcess } from '../sweep/server-process.ts'
import { resolveSweepServeArgs, SWEEP_SERVE_FLAGS } from '../sweep/sweep-flags.ts'

const SWEEP_USAGE = `Usage: servebench sweep serve --serve-cmd CMD --bench-cmd CMD [flags]

Runs a server command per point of a parameter grid, benchmarks it, stops it, and writes
summary.csv, as \`vllm bench sweep serve\` does.
`

/** `servebench sweep <command>`: only `serve` (as `vllm bench sweep serve`). */
export async function runSweepCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(`${SWEEP_USAGE}\nSee servebench sweep serve --help.\n`)
    return sub === undefined ? EXIT_CODES.usage : EXIT_CODES.ok
  }
  if (sub !== 'serve') {
    console.error(
      `servebench: unknown sweep command "${sub}"; valid: serve (see servebench sweep serve --help)`,
    )
    return EXIT_CODES.usage
  }
  // vLLM's FlexibleArgumentParser reads these flags too: --config file.yaml and dotted keys.
  const { flags } = parseServeArgv(rest, SWEEP_SERVE_FLAGS, 'servebench sweep serve')
  if (flags.has('--help')) {
    process.stdout.write(formatSweepServeHelp())
    return EXIT_CODES.ok
  }
  const args = resolveSweepServeArgs(flags)
  let server: ServerProcess | undefined
  // A server runs in a process group of its own: stop it before leaving on a signal.
  const onSignal = (signal: NodeJS.Signals): void => {
    void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    await runSweepServe(args, {
      log: (line) => console.log(line),
      onServer: (current) => {
        server = current
      },
    })
    console.log(`Experiment ${args.dryRun ? 'will be' : 'has been'} saved at: ${args.experimentDir}`)
    return EXIT_CODES.ok
  } catch (error) {
    console.error(`servebench: ${(error as Error).name}: ${(error as Error).message}`)
    console.error(
      `servebench: the sweep stopped early; run it again with --resume (and the same -o/-e) to continue from its last result`,
    )
    return EXIT_CODES.verdictFailed
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

function formatSweepServeHelp(): string {
  const lines = [SWEEP_USAGE, 'Flags:']
  for (const flag of SWEEP_SERVE_FLAGS) {
    const names = [flag.name, ...(flag.aliases ?? [])].join(', ')
    const value = flag.type === 'boolean' ? '' : ' VALUE'
    const extra = flag.default !== undefined ? ` (default: ${flag.default})` : ''
    lines.push(`  ${`${names}${value}`.padEnd(30)} ${flag.help}${extra}`)
  }
  lines.push('')
  return lines.join('\n')
}
