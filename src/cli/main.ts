import { readFileSync } from 'node:fs'
import { inspect } from 'node:util'
import { installEnvProxy } from '../backends/proxy.ts'
import { EXIT_CODES, exitCodeFor, isUserError } from '../errors.ts'
import { terminalSafe } from '../terminal-text.ts'

const USAGE = `Usage: servebench <command> [flags]

Commands:
  serve   Benchmark an endpoint with the flags of \`vllm bench serve\` (servebench serve --help)
  sim     Start the embedded simulated vLLM server (servebench sim --help)
  capacity
          The highest load at which SLOs hold: servebench capacity --slo p99_ttft_ms:500 [serve flags]
  compare Diff two saved results: servebench compare A.json B.json [--markdown] [--fail-on p99_ttft_ms:+10%]
  merge   Join the segment files of --segment i/n runs into one result (servebench merge --help)
  report  One HTML report of saved results: servebench report A.json… -o report.html
  sweep   A server command over a parameter grid: serve, serve_workload, startup, plot, plot_pareto (servebench sweep --help)
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
    // Each command imports only its own modules: a start of `servebench sim` or `compare` does not
    // load the runner, the tokenizers and the datasets.
    switch (command) {
      case 'serve':
        return await (await import('./commands/serve.ts')).runServeCommand(rest)
      case 'sim':
        return await (await import('./commands/sim.ts')).runSim(rest)
      case 'capacity':
        return await (await import('./commands/capacity.ts')).runCapacityCommand(rest)
      case 'compare':
        return await (await import('./commands/compare.ts')).runCompareCommand(rest)
      case 'merge':
        return await (await import('./commands/merge.ts')).runMergeCommand(rest)
      case 'sweep':
        return await (await import('./commands/sweep.ts')).runSweepCommand(rest)
      case 'merge-summaries':
        return await (await import('./commands/merge-summaries.ts')).runMergeSummariesCommand(rest)
      case 'report':
        return await (await import('./commands/report.ts')).runReportCommand(rest)
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
          `servebench: unknown command "${command}"; valid: serve, sim, capacity, compare, merge, report, sweep, merge-summaries (see servebench --help)`,
        )
        return EXIT_CODES.usage
    }
  } catch (error) {
    if (isUserError(error)) {
      console.error(`servebench: ${terminalSafe((error as Error).message)}`)
      return exitCodeFor(error)
    }
    console.error(terminalSafe(inspect(error)))
    return EXIT_CODES.verdictFailed
  }
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
}
