/**
 * `npm run perf -- self-check`: the client self-check against ground truth. Each run streams from
 * a simulator in its own process with fixed timing and `--record-timings`; the client's timestamp
 * error (its stamp minus the simulator's write time) and the server's view of the load decide
 * whether the run was distorted (self-check-truth.ts), and the self-check's verdict is compared with
 * that. The matrix (self-check-matrix.ts) spans run lengths of tens of ms to 30 s, concurrency 1 to
 * 1,000, open and closed loops, both transports, 1 and 2 client threads, on an idle machine, beside
 * a busy loop per core, and with the client's main thread blocked on purpose.
 *
 * `SELF_CHECK_CELLS=48` (the default) runs a seeded fraction of the 768 runs in a few minutes on
 * 2 cores; `SELF_CHECK_CELLS=all` runs them all.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { availableParallelism, cpus, loadavg } from 'node:os'
import { request } from 'undici'
import { defaultBenchConfig } from '../src/config/defaults.ts'
import type { ClientHealthSummary } from '../src/metrics/client-health.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { blockEventLoop } from './block-event-loop.ts'
import { startSimProcess } from './client-overhead.ts'
import {
  allCells,
  BLOCK_EVERY_MS,
  type Cell,
  CONDITIONS,
  type Condition,
  describeCell,
  pickCells,
  planCell,
  TTFT_MS,
} from './self-check-matrix.ts'
import { type GroundTruth, groundTruth, type SimTiming } from './self-check-truth.ts'

export interface SelfCheckRun {
  cell: Cell
  requests: number
  durationS: number
  state: ClientHealthSummary['state'] | 'error'
  reasons: string[]
  /** The check's own figures: the worst reading loop's delay p99 and the dispatch lag p99, with their limits. */
  figures?: { delayP99Ms: number; delayLimitMs: number; lagP99Ms: number; lagLimitMs: number; busy: number }
  truth?: GroundTruth
  loadAverage1m: number
}

/** Runs the picked cells and prints one line per run, then the confusion table. */
export async function measureSelfCheck(): Promise<SelfCheckRun[]> {
  const wanted = process.env.SELF_CHECK_CELLS
  const count = wanted === 'all' ? allCells().length : Number(wanted ?? 48)
  const cells = pickCells(Number.isInteger(count) && count > 0 ? count : 48)
  console.log(
    `self-check calibration: ${cells.length} of ${allCells().length} runs on ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}; TTFT ${TTFT_MS} ms`,
  )
  const runs: SelfCheckRun[] = []
  const sims = new Map<number, Awaited<ReturnType<typeof startSimProcess>>>()
  let neighbours: ChildProcess[] = []
  let condition: Condition | undefined
  try {
    for (const cell of cells) {
      if (cell.condition !== condition) {
        for (const n of neighbours) n.kill('SIGKILL')
        neighbours = cell.condition === 'busy' ? busyLoops(availableParallelism()) : []
        condition = cell.condition
      }
      let sim = sims.get(cell.itlMs)
      if (!sim) {
        // The simulator is the reference clock: ahead of the busy loops and the client, so that it
        // is not preempted between stamping an event and writing it.
        sim = await startSimProcess(
          ['--ttft-ms', String(TTFT_MS), '--itl-ms', String(cell.itlMs), '--record-timings'],
          { nice: -10 },
        )
        sims.set(cell.itlMs, sim)
      }
      const run = await measureCell(cell, sim.url)
      runs.push(run)
      console.log(`  ${describeCell(cell)}: ${describeRun(run)}`)
    }
  } finally {
    for (const n of neighbours) n.kill('SIGKILL')
    for (const sim of sims.values()) await sim.stop()
  }
  printTable(runs)
  console.log(JSON.stringify({ perf: 'self-check', runs }))
  return runs
}

async function measureCell(cell: Cell, url: string): Promise<SelfCheckRun> {
  const plan = planCell(cell)
  await request(`${url}/servebench/timings`, { method: 'DELETE' }).then((r) => r.body.dump())
  const config = defaultBenchConfig()
  config.endpoint.baseUrl = url
  config.endpoint.httpTransport = cell.transport
  config.tokenizer.id = 'cl100k_base'
  config.dataset.inputLen = 16
  config.dataset.outputLen = plan.outputTokens
  config.numPrompts = plan.requests
  if (plan.rate !== undefined) config.load.requestRate = plan.rate
  else config.load.maxConcurrency = cell.concurrency
  if (cell.threads > 1) config.clientThreads = cell.threads
  config.clientCheck = 'warn'
  config.disableTqdm = true
  let unblock: (() => void) | undefined
  try {
    const outcome = await runBenchmark(config, {
      log: (line) => {
        // The block starts with the timed run, after the dataset and the threads are ready.
        if (cell.condition === 'blocked' && line.startsWith('Starting main benchmark run'))
          unblock = blockEventLoop(cell.blockMs, BLOCK_EVERY_MS)
      },
    })
    unblock?.()
    unblock = undefined
    const timings = (await (await request(`${url}/servebench/timings`)).body.json()) as SimTiming[]
    const origin = performance.timeOrigin
    const truth = groundTruth(
      outcome.records.map((r) => ({
        requestId: r.requestId,
        success: r.success,
        itlS: r.itlS,
        ...(r.intendedTimeS !== undefined ? { intendedEpochMs: origin + r.intendedTimeS * 1000 } : {}),
      })),
      timings,
      { loop: cell.loop, concurrency: cell.concurrency },
    )
    const health = outcome.clientHealth
    const readers = health?.threads ?? (health ? [health] : [])
    return {
      cell,
      requests: outcome.records.length,
      durationS: Number(outcome.result.duration ?? 0),
      state: health?.state ?? 'error',
      reasons: health?.reasons ?? ['no self-check'],
      ...(health
        ? {
            figures: {
              delayP99Ms: Math.max(...readers.map((t) => t.eventLoopDelayP99Ms)),
              delayLimitMs: health.thresholds.eventLoopDelayP99Ms,
              lagP99Ms: health.dispatchLagP99Ms,
              lagLimitMs: health.thresholds.dispatchLagP99Ms,
              busy: Math.max(...readers.map((t) => t.eventLoopUtilization)),
            },
          }
        : {}),
      ...(truth ? { truth } : {}),
      loadAverage1m: loadavg()[0]!,
    }
  } catch (error) {
    return {
      cell,
      requests: 0,
      durationS: 0,
      state: 'error',
      reasons: [error instanceof Error ? error.message : String(error)],
      loadAverage1m: loadavg()[0]!,
    }
  } finally {
    unblock?.()
  }
}

function describeRun(r: SelfCheckRun): string {
  const t = r.truth
  const truth = t
    ? `ITL error p99 ${t.itlErrorP99Ms.toFixed(1)} ms (limit ${t.limitMs.toFixed(1)}), load lateness p99 ${t.loadLatenessP99Ms?.toFixed(1) ?? '–'} ms (limit ${t.loadLimitMs.toFixed(1)}) → ${t.distorted ? 'DISTORTED' : 'faithful'}`
    : 'no ground truth'
  const verdict = r.state === 'saturated' ? `saturated (${r.reasons.join('; ')})` : r.state
  return `${r.requests} req, ${r.durationS.toFixed(2)} s; ${truth}; check: ${verdict} (load ${r.loadAverage1m.toFixed(1)})`
}

/** The confusion table per machine condition and over the matrix. */
export function printTable(runs: readonly SelfCheckRun[]): void {
  console.log(
    '\n| condition | runs | distorted | saturated | false alarms (saturated, not distorted) | misses (distorted, judged ok) | too short (of them distorted) | errors |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  const row = (name: string, mine: readonly SelfCheckRun[]): void => {
    const judged = mine.filter((r) => r.truth && (r.state === 'ok' || r.state === 'saturated'))
    const distorted = judged.filter((r) => r.truth!.distorted)
    const falseAlarms = judged.filter((r) => r.state === 'saturated' && !r.truth!.distorted).length
    const misses = distorted.filter((r) => r.state === 'ok').length
    const short = mine.filter((r) => r.state === 'too-short' || r.state === 'no-data')
    const pct = (k: number, n: number): string => (n === 0 ? '–' : `${k} (${((100 * k) / n).toFixed(1)}%)`)
    console.log(
      `| ${name} | ${mine.length} | ${mine.filter((r) => r.truth?.distorted).length} | ${judged.filter((r) => r.state === 'saturated').length} | ${pct(falseAlarms, judged.length)} | ${pct(misses, distorted.length)} | ${short.length} (${short.filter((r) => r.truth?.distorted).length}) | ${mine.filter((r) => r.state === 'error' || !r.truth).length} |`,
    )
  }
  for (const c of CONDITIONS)
    row(
      c,
      runs.filter((r) => r.cell.condition === c),
    )
  row('all', runs)
}

function busyLoops(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  )
}
