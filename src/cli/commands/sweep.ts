import { EXIT_CODES } from '../../errors.ts'
import type { FlagSpec } from '../flags.ts'
import { type ParsedFlags, parseCommandArgs } from '../parse-args.ts'
import { parseServeArgv } from '../serve-argv.ts'
import { resolveSweepPlotArgs, runSweepPlot, SWEEP_PLOT_FLAGS } from '../sweep/plot.ts'
import {
  resolveSweepPlotParetoArgs,
  runSweepPlotPareto,
  SWEEP_PLOT_PARETO_FLAGS,
} from '../sweep/plot-pareto.ts'
import { runSweepStartup } from '../sweep/run-startup.ts'
import { runSweepServe, type SweepHooks } from '../sweep/run-sweep.ts'
import {
  resolveSweepWorkloadArgs,
  runSweepWorkload,
  SWEEP_SLA_FLAGS,
  SWEEP_WORKLOAD_FLAGS,
} from '../sweep/serve-workload.ts'
import type { ServerProcess } from '../sweep/server-process.ts'
import { resolveSweepStartupArgs, SWEEP_STARTUP_FLAGS } from '../sweep/startup-flags.ts'
import { resolveSweepServeArgs, SWEEP_SERVE_FLAGS } from '../sweep/sweep-flags.ts'

/** One `servebench sweep` command: its flags, its usage text and what it runs. */
export interface SweepCommand {
  flags: readonly FlagSpec[]
  usage: string
  /** Takes OUTPUT_DIR (the plot commands), else `--config` files and dotted keys as `serve` does. */
  outputDirArgument?: boolean
  /** Runs the command; returns the experiment folder, if it makes one, for the closing line. */
  run: (
    flags: ParsedFlags,
    positionals: readonly string[],
    hooks: SweepHooks,
  ) => Promise<{ experimentDir?: string; dryRun: boolean }>
}

// A command that starts servers: its flags resolved, then run; its args name the experiment folder.
function serverRun<A extends { experimentDir?: string; dryRun: boolean }>(
  resolve: (flags: ParsedFlags) => A,
  run: (args: A, hooks: SweepHooks) => Promise<unknown>,
): SweepCommand['run'] {
  return async (flags, _positionals, hooks) => {
    const args = resolve(flags)
    await run(args, hooks)
    return args
  }
}

// A command that draws a sweep's files under OUTPUT_DIR.
function plotRun<A extends { dryRun: boolean }>(
  resolve: (flags: ParsedFlags, positionals: readonly string[]) => A,
  run: (args: A, log: SweepHooks['log']) => Promise<unknown>,
): SweepCommand['run'] {
  return async (flags, positionals, hooks) => {
    const args = resolve(flags, positionals)
    await run(args, hooks.log)
    return { dryRun: args.dryRun }
  }
}

/** The `sweep` commands by name, as `vllm bench sweep` names them (vllm/benchmarks/sweep/cli.py). */
export const SWEEP_COMMANDS: Record<string, SweepCommand> = {
  serve: {
    flags: SWEEP_SERVE_FLAGS,
    usage: `Usage: servebench sweep serve --serve-cmd CMD --bench-cmd CMD [flags]

Runs a server command per point of a parameter grid, benchmarks it, stops it, and writes
summary.csv, as \`vllm bench sweep serve\` does.
`,
    run: serverRun(resolveSweepServeArgs, runSweepServe),
  },
  serve_workload: {
    flags: SWEEP_WORKLOAD_FLAGS,
    usage: `Usage: servebench sweep serve_workload --serve-cmd CMD --bench-cmd CMD [flags]

Explores the latency-throughput trade-off of each parameter point: the serial load (1) and the
batch load (--num-prompts) first, then --workload-iters loads evenly spaced between the request
rates (or concurrencies) they reached, as \`vllm bench sweep serve_workload\` does.
`,
    run: serverRun((flags) => resolveSweepWorkloadArgs(flags, 'workload'), runSweepWorkload),
  },
  serve_sla: {
    flags: SWEEP_SLA_FLAGS,
    usage: `Usage: servebench sweep serve_sla --serve-cmd CMD --bench-cmd CMD [flags]

The older name of serve_workload (\`vllm bench sweep serve_sla\`), with its flags --sla-variable
and --sla-iters and its folder names (the variable in the bench point's name).
`,
    run: serverRun((flags) => resolveSweepWorkloadArgs(flags, 'sla'), runSweepWorkload),
  },
  startup: {
    flags: SWEEP_STARTUP_FLAGS,
    usage: `Usage: servebench sweep startup --startup-cmd CMD [flags]

Times a server command from its start to GET /health answering 200, cold (empty caches) and warm,
for each point of a parameter grid, and writes vllm bench startup's keys per run and summary.csv,
as \`vllm bench sweep startup\` does.
`,
    run: serverRun(resolveSweepStartupArgs, runSweepStartup),
  },
  plot: {
    flags: SWEEP_PLOT_FLAGS,
    outputDirArgument: true,
    usage: `Usage: servebench sweep plot OUTPUT_DIR [flags]

Draws performance curves from the summary.json files of a sweep under OUTPUT_DIR: one PNG per
--fig-by group, a panel per --row-by × --col-by group, a curve per --curve-by group of --var-y
against --var-x, as \`vllm bench sweep plot\` does.
`,
    run: plotRun(resolveSweepPlotArgs, runSweepPlot),
  },
  plot_pareto: {
    flags: SWEEP_PLOT_PARETO_FLAGS,
    outputDirArgument: true,
    usage: `Usage: servebench sweep plot_pareto OUTPUT_DIR [flags]

Draws the Pareto frontier between output tokens/s per user and per GPU of every run of a sweep
under OUTPUT_DIR, in OUTPUT_DIR/pareto/PARETO.png, as \`vllm bench sweep plot_pareto\` does.
`,
    run: plotRun(resolveSweepPlotParetoArgs, runSweepPlotPareto),
  },
}

const SWEEP_USAGE = `Usage: servebench sweep <command> [flags]

Commands (as \`vllm bench sweep\`):
  serve           a server per parameter point, benchmarked --num-runs times
  serve_workload  the latency-throughput trade-off over loads from serial to batch
  serve_sla       the older name of serve_workload
  startup         the time from a server command's start to ready, over a parameter grid
  plot            performance curves of a sweep's results (PNG)
  plot_pareto     the Pareto frontier of tokens/s per user against tokens/s per GPU (PNG)
`

/** `servebench sweep <command>`. */
export async function runSweepCommand(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv
  if (sub === undefined || sub === '--help' || sub === '-h') {
    process.stdout.write(`${SWEEP_USAGE}\nSee servebench sweep <command> --help.\n`)
    return sub === undefined ? EXIT_CODES.usage : EXIT_CODES.ok
  }
  const command = Object.hasOwn(SWEEP_COMMANDS, sub) ? SWEEP_COMMANDS[sub] : undefined
  if (!command) {
    console.error(
      `servebench: unknown sweep command "${sub}"; valid: ${Object.keys(SWEEP_COMMANDS).join(', ')} (see servebench sweep --help)`,
    )
    return EXIT_CODES.usage
  }
  // vLLM's FlexibleArgumentParser reads these flags too: --config file.yaml and dotted keys.
  const name = `servebench sweep ${sub}`
  const { flags, positionals } = command.outputDirArgument
    ? rest.includes('--help') || rest.includes('-h')
      ? { flags: new Map([['--help', true as const]]) as ParsedFlags, positionals: [] }
      : parseCommandArgs(rest, {
          command: name,
          flags: command.flags,
          positionals: { what: 'OUTPUT_DIR', min: 1, max: 1 },
        })
    : { ...parseServeArgv(rest, command.flags, name), positionals: [] }
  if (flags.has('--help')) {
    process.stdout.write(formatHelp(command))
    return EXIT_CODES.ok
  }
  let server: ServerProcess | undefined
  // A server runs in a process group of its own: stop it before leaving on a signal.
  const onSignal = (signal: NodeJS.Signals): void => {
    void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143))
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  try {
    const done = await command.run(flags, positionals, {
      log: (line) => console.log(line),
      onServer: (current) => {
        server = current
      },
    })
    if (done.experimentDir !== undefined)
      console.log(`Experiment ${done.dryRun ? 'will be' : 'has been'} saved at: ${done.experimentDir}`)
    return EXIT_CODES.ok
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SERVEBENCH_CONFIG') throw error
    console.error(`servebench: ${(error as Error).name}: ${(error as Error).message}`)
    if (command.outputDirArgument) return EXIT_CODES.verdictFailed
    console.error(
      `servebench: the sweep stopped early; run it again with --resume (and the same -o/-e) to continue from its last result`,
    )
    return EXIT_CODES.verdictFailed
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
}

function formatHelp(command: SweepCommand): string {
  const lines = [command.usage, 'Flags:']
  for (const flag of command.flags) {
    const names = [flag.name, ...(flag.aliases ?? [])].join(', ')
    const value = flag.type === 'boolean' ? '' : ' VALUE'
    const choices = flag.choices ? ` One of: ${flag.choices.join(', ')}.` : ''
    const extra = flag.default !== undefined ? ` (default: ${flag.default})` : ''
    lines.push(`  ${`${names}${value}`.padEnd(30)} ${flag.help}${choices}${extra}`)
  }
  lines.push('')
  return lines.join('\n')
}
