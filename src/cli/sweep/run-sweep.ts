import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { writeReportFile } from '../../report/files/write.ts'
import { ensureDir } from '../../report/files/write-safe.ts'
import { parsePythonJson } from '../../report/result/py-json.ts'
import {
  applyToCommand,
  linkedPointsMatch,
  pointFolderName,
  pythonStr,
  type SweepItem,
  sweepItemName,
} from './param-sweep.ts'
import { runCommand, ServerProcess, SweepStepError } from './server-process.ts'
import { summaryCsv } from './summary-csv.ts'
import type { SweepServeArgs } from './sweep-flags.ts'

/** One run's result with `run_number` and the point's parameters added. */
export type RunData = Record<string, unknown>

/** What the sweep prints (upstream's `[BEGIN SERVER]` … lines) and the server it is running, for a signal handler. */
export interface SweepHooks {
  log: (line: string) => void
  onServer?: (server: ServerProcess | undefined) => void
}

/**
 * `servebench sweep serve`: for each serve point, start the server command with its parameters
 * and wait for `/health`; for each bench point linked to it, run the benchmark command
 * `--num-runs` times (a result file per run, `summary.json` per point); stop the server's process
 * group; then write `summary.csv` with every run. Result files already there are read, not run
 * again (`--resume`). Python: run_combs (vllm/benchmarks/sweep/serve.py).
 */
export async function runSweepServe(args: SweepServeArgs, hooks: SweepHooks): Promise<RunData[] | undefined> {
  const allData: RunData[] = []
  for (const serve of args.serveParams) {
    const points = args.benchParams.filter((bench) => linkedPointsMatch(serve, bench, args.linkVars))
    // Deviation: Python also counts bench points the link variables exclude, so it starts a
    // server on every resume; only the points that will run are checked here.
    const needsServer = points.some(
      (bench) => !existsSync(join(args.experimentDir, pointFolderName(serve, bench), 'summary.json')),
    )
    await withServer(args, serve, needsServer, hooks, async (server) => {
      for (const bench of points) {
        const folder = join(args.experimentDir, pointFolderName(serve, bench))
        const data = await runComb(args, server, serve, bench, folder, hooks.log)
        if (data) allData.push(...data)
      }
    })
  }
  if (args.dryRun) return undefined
  await writeReportFile(join(args.experimentDir, 'summary.csv'), summaryCsv(allData))
  return allData
}

/**
 * Runs `body` with the serve point's server started and ready (none on a dry run or when
 * `needsServer` is false), then stops its process group. With `--continue-on-error`, a failure
 * is written to `SERVE-<point>-failure.json` and the sweep goes on. Python: server_ctx, run_server.
 */
export async function withServer(
  args: SweepServeArgs,
  serve: SweepItem,
  needsServer: boolean,
  hooks: SweepHooks,
  body: (server: ServerProcess | undefined) => Promise<void>,
): Promise<void> {
  const { log } = hooks
  try {
    let server: ServerProcess | undefined
    if (needsServer) {
      const command = applyToCommand(serve, args.serveCommand)
      log('[BEGIN SERVER]')
      log(`Server overrides: ${pythonStr(serve)}`)
      log(`Server command: ${pythonStr(command)}`)
      if (!args.dryRun) {
        server = new ServerProcess(command, {
          showStdout: args.showStdout,
          afterBenchCommand: args.afterBenchCommand,
          log,
        })
        hooks.onServer?.(server)
        server.start()
      }
    }
    try {
      await server?.waitUntilReady(args.serverReadyTimeoutS)
      await body(server)
    } finally {
      await server?.stop()
      hooks.onServer?.(undefined)
      if (needsServer) log('[END SERVER]')
    }
  } catch (error) {
    if (!args.continueOnError) throw error
    const name = `SERVE-${sweepItemName(serve) || 'default'}-failure.json`
      .replaceAll('/', '_')
      .replaceAll('..', '__')
    const path = join(args.experimentDir, name)
    await writeJson(path, { ...failure(error), serve_overrides: serve }, 2)
    log(`[FAILED SERVER COMBINATION] ${sweepItemName(serve) || '(default)'}: ${errorText(error)}`)
    log(`Failure details: ${path}`)
  }
}

/**
 * One serve × bench point in `folder`: the warmup, then `--num-runs` runs, then its
 * `summary.json`; undefined on a dry run. Python: run_comb.
 */
export async function runComb(
  args: SweepServeArgs,
  server: ServerProcess | undefined,
  serve: SweepItem,
  bench: SweepItem,
  folder: string,
  log: (line: string) => void,
): Promise<RunData[] | undefined> {
  const runOne = async (
    overrides: SweepItem,
    runNumber: number,
    outputPath: string,
  ): Promise<RunData | undefined> => {
    try {
      return await runBenchmark(args, server, serve, overrides, runNumber, outputPath, log)
    } catch (error) {
      if (!args.continueOnError) throw error
      const failurePath = outputPath.replace(/\.json$/, '.failure.json')
      await writeJson(
        failurePath,
        { run_number: runNumber, ...failure(error), serve_overrides: serve, bench_overrides: overrides },
        2,
      )
      log(`[FAILED BENCHMARK] run=${runNumber}: ${errorText(error)}`)
      log(`Failure details: ${failurePath}`)
      await server?.afterBench().catch(() => undefined)
      return undefined
    }
  }
  if (args.warmupNumPrompts > 0) {
    await runOne({ ...bench, num_prompts: args.warmupNumPrompts }, -1, join(folder, 'warmup.json'))
  }
  const data: RunData[] = []
  for (let run = 0; run < args.numRuns; run++) {
    const runData = await runOne(bench, run, join(folder, `run=${run}.json`))
    if (runData) data.push(runData)
  }
  if (args.dryRun) return undefined
  if (data.length === 0) {
    log('[NO SUCCESSFUL MEASURED RUNS] leaving combination retryable')
    return []
  }
  await writeJson(join(folder, 'summary.json'), data, 4)
  return data
}

/** One run of the benchmark command, its result file tagged with the point's parameters. Python: run_benchmark. */
async function runBenchmark(
  args: SweepServeArgs,
  server: ServerProcess | undefined,
  serve: SweepItem,
  bench: SweepItem,
  runNumber: number,
  outputPath: string,
  log: (line: string) => void,
): Promise<RunData | undefined> {
  const command = [
    ...applyToCommand(bench, args.benchCommand),
    '--percentile-metrics',
    'ttft,tpot,itl,e2el',
    '--save-result',
    '--result-dir',
    dirname(outputPath),
    '--result-filename',
    basename(outputPath),
  ]
  const overrides = [`Benchmark overrides: ${pythonStr(bench)}`]
  if (beginBenchmark(log, overrides, runNumber, command, outputPath))
    return tagged(await readJson(outputPath), serve, bench, runNumber)
  if (!server) {
    if (!args.dryRun) throw new SweepStepError('ValueError', `Cannot find results at ${outputPath}`)
    log('[END BENCHMARK]')
    return undefined
  }
  await ensureDir(dirname(outputPath))
  await runCommand(command, args.showStdout)
  await server.afterBench()
  const data = tagged(await readJson(outputPath), serve, bench, runNumber)
  await writeJson(outputPath, data, 4)
  log('[END BENCHMARK]')
  return data
}

/** Python: _update_run_data. */
function tagged(data: RunData, serve: SweepItem, bench: SweepItem, runNumber: number): RunData {
  return Object.assign(data, { run_number: runNumber }, serve, bench)
}

async function readJson(path: string): Promise<RunData> {
  return parsePythonJson(await readFile(path, 'utf8')) as RunData
}

async function writeJson(path: string, data: unknown, indent: number): Promise<void> {
  await writeReportFile(path, `${JSON.stringify(data, null, indent)}${indent === 2 ? '\n' : ''}`)
}

function failure(error: unknown): { error_type: string; error: string } {
  return {
    error_type: error instanceof Error ? error.name : 'Error',
    error: String((error as Error)?.message ?? error),
  }
}

function errorText(error: unknown): string {
  const { error_type, error: message } = failure(error)
  return `${error_type}: ${message}`
}

/**
 * Logs a benchmark's start as upstream does (its overrides, run number, command and output file);
 * true when the output file exists already, which a resumed sweep skips.
 */
export function beginBenchmark(
  log: (line: string) => void,
  overrides: readonly string[],
  runNumber: number,
  command: readonly string[],
  outputPath: string,
): boolean {
  log('[BEGIN BENCHMARK]')
  for (const line of overrides) log(line)
  log(`Run Number: ${runNumber}`)
  log(`Benchmark command: ${pythonStr(command)}`)
  log(`Output file: ${outputPath}`)
  if (!existsSync(outputPath)) return false
  log('Found existing results.')
  log('[SKIPPED BENCHMARK]')
  return true
}
