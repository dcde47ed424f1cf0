import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mean, percentile } from '../../metrics/percentile.ts'
import { writeReportFile } from '../../report/files/write.ts'
import { parsePythonJson } from '../../report/result/py-json.ts'
import { applyToCommand, pointFolderName, pythonStr, type SweepItem } from './param-sweep.ts'
import { beginBenchmark, type SweepHooks } from './run-sweep.ts'
import { ServerProcess } from './server-process.ts'
import { ITERATION_KEYS, type StartupIterations, type SweepStartupArgs } from './startup-flags.ts'
import { summaryCsv } from './summary-csv.ts'

type RunData = Record<string, unknown>

/** Python: PERCENTAGES (vllm/benchmarks/startup.py). */
const PERCENTAGES = [10, 25, 50, 75, 90, 99] as const
// A start is timed to its first 200 from /health: polling often keeps that close to the moment.
const STARTUP_POLL_MS = 20

/**
 * `servebench sweep startup`: for each serve × startup point, `--num-runs` runs; each run starts
 * the server command cold (empty caches) `num_iters_cold` times, warms it up, then starts it
 * `num_iters_warm` times, timing each start from spawning the command to `GET /health` answering
 * 200, and stops it. A run's file holds `vllm bench startup`'s keys (`avg_cold_startup_time`,
 * `cold_startup_times`, `cold_startup_percentiles`, and the warm ones), in seconds, plus
 * `run_number` and the point's parameters; then `summary.json` per point and `summary.csv`.
 * Python: run_combs (vllm/benchmarks/sweep/startup.py).
 */
export async function runSweepStartup(
  args: SweepStartupArgs,
  hooks: SweepHooks,
): Promise<RunData[] | undefined> {
  const allData: RunData[] = []
  for (const serve of args.serveParams) {
    for (const startup of args.startupParams) {
      const folder = join(args.experimentDir, pointFolderName(serve, startup, [], 'STARTUP-'))
      const data: RunData[] = []
      for (let run = 0; run < args.numRuns; run++) {
        const runData = await runStartup(args, serve, startup, run, join(folder, `run=${run}.json`), hooks)
        if (runData) data.push(runData)
      }
      if (args.dryRun) continue
      await writeReportFile(join(folder, 'summary.json'), JSON.stringify(data, null, 4))
      allData.push(...data)
    }
  }
  if (args.dryRun) return undefined
  await writeReportFile(join(args.experimentDir, 'summary.csv'), summaryCsv(allData))
  return allData
}

/** `vllm bench startup`'s keys of one phase (`cold` or `warm`). Python: _metric_to_json. */
export function phaseKeys(phase: 'cold' | 'warm', timesS: readonly number[]): RunData {
  if (timesS.length === 0) return {}
  return {
    [`avg_${phase}_startup_time`]: mean(timesS),
    [`${phase}_startup_times`]: [...timesS],
    [`${phase}_startup_percentiles`]: Object.fromEntries(
      PERCENTAGES.map((p) => [String(p), percentile(timesS, p)]),
    ),
  }
}

/** The iteration counts of a startup point: its `num_iters_*` keys over the flags. */
export function pointIterations(startup: SweepItem, defaults: StartupIterations): StartupIterations {
  const iters = { ...defaults }
  for (const [key, phase] of Object.entries(ITERATION_KEYS)) {
    if (typeof startup[key] === 'number') iters[phase] = startup[key]
  }
  return iters
}

// Python: run_benchmark (sweep/startup.py) around main (benchmarks/startup.py).
async function runStartup(
  args: SweepStartupArgs,
  serve: SweepItem,
  startup: SweepItem,
  runNumber: number,
  outputPath: string,
  hooks: SweepHooks,
): Promise<RunData | undefined> {
  const { log } = hooks
  const flags = Object.fromEntries(Object.entries(startup).filter(([key]) => !(key in ITERATION_KEYS)))
  const command = applyToCommand(flags, applyToCommand(serve, args.startupCommand))
  const overrides = [`Serve overrides: ${pythonStr(serve)}`, `Startup overrides: ${pythonStr(startup)}`]
  if (beginBenchmark(log, overrides, runNumber, command, outputPath))
    return tagged(parsePythonJson(await readFile(outputPath, 'utf8')) as RunData, serve, startup, runNumber)
  if (args.dryRun) {
    log('[END BENCHMARK]')
    return undefined
  }
  const iters = pointIterations(startup, args.iters)
  const cold: number[] = []
  for (let i = 0; i < iters.cold; i++) cold.push(await coldStart(args, command, hooks))
  for (let i = 0; i < iters.warmup; i++) await timeStart(args, command, {}, hooks)
  const warm: number[] = []
  for (let i = 0; i < iters.warm; i++) warm.push(await timeStart(args, command, {}, hooks))
  const data = tagged({ ...phaseKeys('cold', cold), ...phaseKeys('warm', warm) }, serve, startup, runNumber)
  for (const [phase, times] of [
    ['cold', cold],
    ['warm', warm],
  ] as const) {
    if (times.length > 0) log(`Avg ${phase} startup time: ${mean(times).toFixed(2)} seconds`)
  }
  await writeReportFile(outputPath, JSON.stringify(data, null, 4))
  log('[END BENCHMARK]')
  return data
}

// Python: cold_startup, a temporary VLLM_CACHE_ROOT and a fresh inductor cache, removed after.
async function coldStart(
  args: SweepStartupArgs,
  command: readonly string[],
  hooks: SweepHooks,
): Promise<number> {
  const cache = await mkdtemp(join(tmpdir(), 'servebench_startup_bench_cold_'))
  try {
    return await timeStart(
      args,
      command,
      { VLLM_CACHE_ROOT: cache, TORCHINDUCTOR_CACHE_DIR: join(cache, 'inductor') },
      hooks,
    )
  } finally {
    await rm(cache, { recursive: true, force: true })
  }
}

/** Seconds from spawning the command to its first 200 from `GET /health`; the server is stopped after. */
async function timeStart(
  args: SweepStartupArgs,
  command: readonly string[],
  env: Record<string, string>,
  hooks: SweepHooks,
): Promise<number> {
  const server = new ServerProcess(command, {
    showStdout: args.showStdout,
    afterBenchCommand: [],
    log: hooks.log,
    env,
  })
  hooks.onServer?.(server)
  const startMs = performance.now()
  try {
    server.start()
    await server.waitUntilReady(args.serverReadyTimeoutS, STARTUP_POLL_MS)
    return (performance.now() - startMs) / 1000
  } finally {
    await server.stop()
    hooks.onServer?.(undefined)
  }
}

function tagged(data: RunData, serve: SweepItem, startup: SweepItem, runNumber: number): RunData {
  return Object.assign(data, { run_number: runNumber }, serve, startup)
}
