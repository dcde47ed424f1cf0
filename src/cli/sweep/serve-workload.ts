import { join } from 'node:path'
import { ConfigError, type ConfigIssue } from '../../errors.ts'
import { writeReportFile } from '../../report/files/write.ts'
import type { FlagSpec } from '../flags.ts'
import type { ParsedFlags } from '../parse-args.ts'
import { hasParam, pointFolderName, pythonStr, type SweepItem, sweepItemText } from './param-sweep.ts'
import { type RunData, runComb, type SweepHooks, withServer } from './run-sweep.ts'
import { SweepStepError } from './server-process.ts'
import { summaryCsv } from './summary-csv.ts'
import { resolveSweepServeArgs, SWEEP_SERVE_FLAGS, type SweepServeArgs } from './sweep-flags.ts'

/** The load parameter a workload sweep explores. Python: WorkloadVariable. */
export type WorkloadVariable = 'request_rate' | 'max_concurrency'

/**
 * `serve_workload` (vllm/benchmarks/sweep/serve_workload.py) and its older name `serve_sla`
 * (vllm/benchmarks/sweep/serve_sla.py), which differ in flag names, log tags, folder names and
 * the settings of the two first loads.
 */
export type WorkloadStyle = 'workload' | 'sla'

/** The resolved options of `servebench sweep serve_workload` / `serve_sla`. */
export interface SweepWorkloadArgs extends SweepServeArgs {
  style: WorkloadStyle
  workloadVar: WorkloadVariable
  /** Loads explored per point, the serial and the batch one included. */
  workloadIters: number
}

const WORKLOAD_VARS: readonly WorkloadVariable[] = ['request_rate', 'max_concurrency']
/** Python: DEFAULT_NUM_PROMPTS (vllm/benchmarks/datasets.py). */
const DEFAULT_NUM_PROMPTS = 1000

const NAMES = {
  workload: { variable: '--workload-var', iters: '--workload-iters', tag: 'WL', what: 'workload' },
  sla: { variable: '--sla-variable', iters: '--sla-iters', tag: 'SLA', what: 'SLA' },
} as const

const workloadFlag = (name: string, type: FlagSpec['type'], help: string, extra: Partial<FlagSpec> = {}) =>
  ({ name, type, help, group: 'Client', status: 'supported', parity: 'python', ...extra }) as FlagSpec

/** The flags of `vllm bench sweep serve_workload`: those of `sweep serve`, then the workload options. */
export const SWEEP_WORKLOAD_FLAGS: readonly FlagSpec[] = [
  ...SWEEP_SERVE_FLAGS,
  workloadFlag('--workload-var', 'string', 'The load parameter set in each iteration.', {
    default: 'request_rate',
    choices: WORKLOAD_VARS,
  }),
  workloadFlag(
    '--workload-iters',
    'int',
    'Loads explored per point, including the serial (1) and batch (--num-prompts) loads the others are interpolated between.',
    { default: '10' },
  ),
]

/** The flags of `vllm bench sweep serve_sla`, the older name: `--sla-variable` and `--sla-iters`. */
export const SWEEP_SLA_FLAGS: readonly FlagSpec[] = [
  ...SWEEP_SERVE_FLAGS,
  workloadFlag('--sla-variable', 'string', 'The load parameter set in each iteration.', {
    default: 'request_rate',
    choices: WORKLOAD_VARS,
  }),
  workloadFlag(
    '--sla-iters',
    'int',
    'Loads explored per point, including the serial (1) and batch (num_prompts) loads the others are interpolated between.',
    { default: '10' },
  ),
]

/** Validates the flags of either name; every issue at once. */
export function resolveSweepWorkloadArgs(
  flags: ParsedFlags,
  style: WorkloadStyle,
  now: Date = new Date(),
): SweepWorkloadArgs {
  const names = NAMES[style]
  const issues: ConfigIssue[] = []
  let base: SweepServeArgs | undefined
  try {
    base = resolveSweepServeArgs(flags, now)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    issues.push(...error.issues)
  }
  const given = flags.get(names.variable)
  const variable = typeof given === 'string' ? given : 'request_rate'
  if (!WORKLOAD_VARS.includes(variable as WorkloadVariable)) {
    issues.push({
      path: names.variable,
      message: `must be request_rate or max_concurrency (got ${variable})`,
    })
  }
  const itersGiven = flags.get(names.iters)
  const itersText = typeof itersGiven === 'string' ? itersGiven : undefined
  const iters = itersText === undefined ? 10 : Number(itersText)
  if (!Number.isInteger(iters) || iters < 2) {
    issues.push({ path: names.iters, message: `must be an integer of at least 2 (got ${itersText})` })
  }
  const workloadVar = variable as WorkloadVariable
  for (const bench of base?.benchParams ?? []) {
    if (hasParam(bench, workloadVar)) {
      issues.push({
        path: '--bench-params',
        message: `must not set ${workloadVar}: the ${names.what} sweep explores it (${names.variable})`,
      })
      break
    }
  }
  if (issues.length > 0 || !base) throw new ConfigError(issues)
  return { ...base, style, workloadVar, workloadIters: iters }
}

/**
 * For each serve point (a server each) and each bench point: runs the serial load (1) and the
 * batch load (the dataset size), estimates the value of `--workload-var` each reached (the request
 * throughput; for concurrency, throughput × mean E2EL by Little's law), and runs the loads evenly
 * spaced between them; then writes `summary.csv` with every run. Python: explore_combs_workloads.
 */
export async function runSweepWorkload(
  args: SweepWorkloadArgs,
  hooks: SweepHooks,
): Promise<RunData[] | undefined> {
  const allData: RunData[] = []
  for (const serve of args.serveParams) {
    await withServer(args, serve, true, hooks, async (server) => {
      for (const bench of args.benchParams) {
        const run = (comb: SweepItem, value: number): Promise<RunData[] | undefined> =>
          runComb(
            args,
            server,
            serve,
            { ...comb, [args.workloadVar]: value },
            join(args.experimentDir, workloadFolder(args, serve, comb, value)),
            hooks.log,
          )
        const data = await explorePoint(args, serve, bench, run, hooks.log)
        if (data) allData.push(...data)
      }
    })
  }
  if (args.dryRun) return undefined
  await writeReportFile(join(args.experimentDir, 'summary.csv'), summaryCsv(allData))
  return allData
}

/**
 * The loads between the serial and the batch value: numpy's `linspace(serial, batch, iters)`
 * without its ends, rounded as Python rounds (half to even), without repeats, ascending.
 */
export function interLoads(serial: number, batch: number, iters: number): number[] {
  const step = (batch - serial) / (iters - 1)
  const inner = Array.from({ length: Math.max(0, iters - 2) }, (_, i) => serial + (i + 1) * step)
  return [...new Set(inner.map(roundHalfEven))].sort((a, b) => a - b)
}

/** The value of the workload variable a run reached. Python: _estimate_workload_value. */
export function estimateWorkload(run: RunData, variable: WorkloadVariable): number {
  const throughput = Number(run.request_throughput)
  if (variable === 'request_rate') return throughput
  return (throughput * Number(run.mean_e2el_ms)) / 1000
}

/** The dataset size: the bench point's `num_prompts`, else `--num-prompts` of the bench command, else 1000. */
export function datasetSize(bench: SweepItem, benchCommand: readonly string[]): number {
  if ('num_prompts' in bench) return Math.trunc(Number(bench.num_prompts))
  for (const [i, word] of benchCommand.entries()) {
    if (word === '--num-prompts' && i + 1 < benchCommand.length)
      return Math.trunc(Number(benchCommand[i + 1]))
    if (word.startsWith('--num-prompts=')) return Math.trunc(Number(word.slice('--num-prompts='.length)))
  }
  return DEFAULT_NUM_PROMPTS
}

// Python: explore_comb_workloads (serve_workload.py), explore_sla (serve_sla.py).
async function explorePoint(
  args: SweepWorkloadArgs,
  serve: SweepItem,
  bench: SweepItem,
  run: (comb: SweepItem, value: number) => Promise<RunData[] | undefined>,
  log: (line: string) => void,
): Promise<RunData[] | undefined> {
  const { tag, what } = NAMES[args.style]
  const variable = args.workloadVar
  log(`[${tag} START]`)
  log(`Serve parameters: ${sweepItemText(serve) || '(None)'}`)
  log(`Bench parameters: ${sweepItemText(bench) || '(None)'}`)
  log(`Number of ${what} iterations: ${args.workloadIters}`)
  let serial: RunData[] | undefined
  let batch: RunData[] | undefined
  if (args.style === 'workload') {
    const size = datasetSize(bench, args.benchCommand)
    log(`Dataset size: ${size}`)
    serial = await run({ ...bench, max_concurrency: 1 }, 1)
    batch = await run({ ...bench, max_concurrency: size }, size)
  } else {
    // The older serve_sla took the batch load from the bench point only.
    serial = await run(bench, 1)
    batch = await run(bench, 'num_prompts' in bench ? Math.trunc(Number(bench.num_prompts)) : 1000)
  }
  if (serial === undefined || batch === undefined) {
    if (args.dryRun) {
      log(`Omitting intermediate ${what} iterations.`)
      log(`[${tag} END]`)
    }
    return undefined
  }
  if (serial.length === 0 || batch.length === 0) {
    throw new SweepStepError(
      'ValueError',
      `No successful run at the ${serial.length === 0 ? 'serial' : 'batch'} load: cannot estimate the range of ${variable} to explore`,
    )
  }
  const serialValue = Math.ceil(average(serial, variable))
  log(`Serial inference: ${variable}=${serialValue}`)
  const batchValue = Math.floor(average(batch, variable))
  log(`Batch inference: ${variable}=${batchValue}`)
  const inter: RunData[] = []
  for (const value of interLoads(serialValue, batchValue, args.workloadIters)) {
    log(`Exploring: ${variable}=${pythonStr(value)}`)
    const data = await run(bench, value)
    if (data) inter.push(...data)
  }
  log(`[${tag} END]`)
  return [...serial, ...inter, ...batch]
}

// serve_workload names a load's folder after the bench point plus `WL--<var>=<value>`; serve_sla
// after the bench point with the variable set.
function workloadFolder(args: SweepWorkloadArgs, serve: SweepItem, comb: SweepItem, value: number): string {
  if (args.style === 'sla') return pointFolderName(serve, { ...comb, [args.workloadVar]: value })
  return pointFolderName(serve, comb, ['WL-', `${args.workloadVar}=${pythonStr(value)}`])
}

function average(runs: readonly RunData[], variable: WorkloadVariable): number {
  return runs.reduce((sum, r) => sum + estimateWorkload(r, variable), 0) / runs.length
}

function roundHalfEven(x: number): number {
  const floor = Math.floor(x)
  const diff = x - floor
  if (diff < 0.5) return floor
  if (diff > 0.5) return floor + 1
  return floor % 2 === 0 ? floor : floor + 1
}
