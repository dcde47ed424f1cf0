import { readFileSync } from 'node:fs'
import { installEnvProxy } from '../backends/proxy.ts'
import { EXIT_CODES, exitCodeFor, isUserError } from '../errors.ts'
import { runCompareCommand } from './commands/compare.ts'
import { runMergeCommand } from './commands/merge.ts'
import { runMergeSummariesCommand } from './commands/merge-summaries.ts'
import { runReportCommand } from './commands/report.ts'
import { runServeCommand } from './commands/serve.ts'
import { runSim } from './commands/sim.ts'
import { runSweepCommand } from './commands/sweep.ts'

const USAGE = `Usage: servebench <command> [flags]

Commands:
  serve   Benchmark an endpoint with the flags of \`vllm bench serve\` (servebench serve --help)
  sim     Start the embedded simulated vLLM server (servebench sim --help)
  compare Diff two saved results: servebench compare A.json B.json [--markdown] [--fail-on p99_ttft_ms:+10%]
  merge   Join the segment files of --segment i/n runs into one result (servebench merge --help)
  report  One HTML report of saved results: servebench report A.json… -o report.html
  sweep   Benchmark a server command over a parameter grid (servebench sweep serve --help)
  merge-summaries
          Merge the servebench-summary.json of each CI shard: servebench merge-summaries DIR...

Options:
  --version   Print the version
  --help      Show this help
`

/** The `servebench` binary. Returns the exit code; user errors print one message, internal errors a stack. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv
  // As Python's aiohttp session (trust_env): the probes and downloads too go through the proxy.
  installEnvProxy(process.env)
  try {
    switch (command) {
      case 'serve':
        return await runServeCommand(rest)
      case 'sim':
        return await runSim(rest)
      case 'compare':
        return await runCompareCommand(rest)
      case 'merge':
        return await runMergeCommand(rest)
      case 'sweep':
        return await runSweepCommand(rest)
      case 'merge-summaries':
        return await runMergeSummariesCommand(rest)
      case 'report':
        return await runReportCommand(rest)
      case '--version':
      case '-v':
        console.log(readVersion())
        return EXIT_CODES.ok
      case undefined:
      case '--help':
      case '-h':
      case 'help':
        process.stdout.write(USAGE)
        return command === undefined ? EXIT_CODES.usage : EXIT_CODES.ok
      default:
        console.error(
          `servebench: unknown command "${command}"; valid: serve, sim, compare, merge, report, sweep, merge-summaries (see servebench --help)`,
        )
        return EXIT_CODES.usage
    }
  } catch (error) {
    if (isUserError(error)) {
      console.error(`servebench: ${(error as Error).message}`)
      return exitCodeFor(error)
    }
    console.error(error)
    return EXIT_CODES.verdictFailed
  }
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
}
