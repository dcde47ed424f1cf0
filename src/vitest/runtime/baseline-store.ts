import { readFileSync } from 'node:fs'
import { isAbsolute, join, relative } from 'node:path'
import type { CapacityAnswer } from '../../capacity/capacity-result.ts'
import { BaselineError } from '../../errors.ts'
import {
  blockedLatencySamples,
  LATENCY_METRICS,
  THROUGHPUT_UNITS,
  type ThroughputKey,
  throughputWindows,
} from '../../metrics/result-samples.ts'
import { writeFileAtomicSync } from '../../report/files/write-safe.ts'
import { parsePythonJson } from '../../report/result/py-json.ts'
import type { ServeBenchResult } from '../shared/meta.ts'
import type { BaselineProvenance } from './provenance.ts'

/**
 * Baselines on disk, one JSON file per suite file (like `__snapshots__/x.snap`), keyed by the
 * benchmark's full name. Synchronous on purpose: `toMatchBaseline` is a sync matcher, so users need
 * no `await`. Runs in the pool worker (the matcher's thread); no Vitest state. Written through the
 * files layer (a temporary file, then a rename).
 */

/** What is kept of one run: the samples the comparison resamples. */
export interface BaselineRun {
  recordedAt: string
  /** `ttft|tpot|itl|e2el`: the successful requests' values in ms. */
  samples: Record<string, number[]>
  /** The block (of correlated requests) of each sample, same keys and lengths as `samples`. */
  blocks: Record<string, number[]>
  /** Throughput keys: the rates of the steady part's windows. */
  windows: Record<string, number[]>
  /** Width of those windows. */
  windowS: number
  /** Headline numbers of the result, for people reading the file. */
  metrics: Record<string, number>
}

/** One benchmark's baseline: k recorded runs of one configuration. */
export interface BaselineRecord {
  /** `configFingerprint` of the configuration that recorded it. */
  fingerprint: string
  /** The workload options that fingerprint was taken of, to name what changed when it goes stale. */
  workload?: Record<string, unknown>
  provenance?: BaselineProvenance
  runs: BaselineRun[]
  /**
   * The answer of a capacity search (`serveBench.capacity`), whose baseline is its answer rather
   * than request samples (`runs` is then empty).
   */
  capacity?: CapacityAnswer
}

export interface BaselineFile {
  version: 2
  benchmarks: Record<string, BaselineRecord>
}

/** What a baseline file holds for one benchmark. */
export type StoredBaseline =
  | { status: 'found'; record: BaselineRecord }
  | { status: 'missing' }
  /** The file was written by an older servebench, in a format this one cannot compare against. */
  | { status: 'outdated'; version: number }

export const BASELINE_FILE_VERSION = 2

/** `<baselineDir>/<suite path relative to root>.json`. */
export function baselineFilePath(baselineDir: string, root: string, suiteFile: string): string {
  const rel = isAbsolute(suiteFile) ? relative(root, suiteFile) : suiteFile
  return join(baselineDir, `${rel.replaceAll('..', '__')}.json`)
}

/** The stored baseline of one benchmark. */
export function readBaseline(file: string, name: string): StoredBaseline {
  const data = readFile(file)
  if (data.version !== BASELINE_FILE_VERSION) return { status: 'outdated', version: data.version }
  const record = data.benchmarks[name] as BaselineRecord | undefined
  return record ? { status: 'found', record } : { status: 'missing' }
}

/**
 * Stores (or replaces) one benchmark's baseline, keeping the others of the file. An outdated file
 * is replaced: its records cannot be compared against anyway.
 */
export function writeBaseline(file: string, name: string, record: BaselineRecord): void {
  const data = readFile(file)
  const others: BaselineFile['benchmarks'] =
    data.version === BASELINE_FILE_VERSION ? (data.benchmarks as BaselineFile['benchmarks']) : {}
  others[name] = record
  const sorted: BaselineFile = {
    version: BASELINE_FILE_VERSION,
    benchmarks: Object.fromEntries(Object.entries(others).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  }
  try {
    writeFileAtomicSync(file, `${formatBaselineJson(sorted)}\n`)
  } catch (cause) {
    throw new BaselineError(`Cannot write baseline file ${file}: ${(cause as Error).message}`, { cause })
  }
}

/**
 * The baseline of k runs of one benchmark (the DSL records `baselineRuns` runs): each run's
 * latency samples with their blocks and its steady-part window throughputs.
 */
export function baselineFromResults(
  results: readonly ServeBenchResult[],
  fingerprint: string,
  provenance?: BaselineProvenance,
  workload?: Record<string, unknown>,
): BaselineRecord {
  if (results.length === 0) throw new RangeError('baselineFromResults needs at least one result')
  return {
    fingerprint,
    ...(workload ? { workload } : {}),
    ...(provenance ? { provenance } : {}),
    runs: results.map(baselineRun),
  }
}

/** What is kept of one result: also what the current run is compared as. */
export function baselineRun(result: ServeBenchResult): BaselineRun {
  const samples: Record<string, number[]> = {}
  const blocks: Record<string, number[]> = {}
  for (const m of LATENCY_METRICS) {
    const s = blockedLatencySamples(result, m)
    samples[m] = Array.from(s.values, round4)
    blocks[m] = Array.from(s.blocks)
  }
  const windows: Record<string, number[]> = {}
  let windowS = 0
  for (const k of Object.keys(THROUGHPUT_UNITS) as ThroughputKey[]) {
    const w = throughputWindows(result, k)
    windows[k] = w.rates.map(round4)
    windowS = w.windowS
  }
  const metrics: Record<string, number> = {}
  for (const [k, v] of Object.entries(result)) {
    if (typeof v === 'number' && Number.isFinite(v) && (/_ms$/.test(k) || k.endsWith('throughput')))
      metrics[k] = v
  }
  return { recordedAt: new Date().toISOString(), samples, blocks, windows, windowS: round4(windowS), metrics }
}

interface RawFile {
  version: number
  benchmarks: Record<string, unknown>
}

function readFile(file: string): RawFile {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT')
      return { version: BASELINE_FILE_VERSION, benchmarks: {} }
    throw new BaselineError(`Cannot read baseline file ${file}: ${(cause as Error).message}`, { cause })
  }
  let data: Partial<RawFile>
  try {
    data = parsePythonJson(text) as Partial<RawFile>
  } catch (cause) {
    throw new BaselineError(`Baseline file ${file} is not valid JSON; delete it or rerun with -u`, { cause })
  }
  if (typeof data?.version !== 'number' || typeof data.benchmarks !== 'object' || data.benchmarks === null) {
    throw new BaselineError(
      `Baseline file ${file} is not a servebench baseline (version ${BASELINE_FILE_VERSION}); delete it or rerun with -u`,
    )
  }
  if (data.version > BASELINE_FILE_VERSION) {
    throw new BaselineError(
      `Baseline file ${file} has version ${data.version}, newer than this servebench reads (${BASELINE_FILE_VERSION}); update servebench or rerun with -u`,
    )
  }
  return data as RawFile
}

// Indented, but each number array on one line: a baseline diff shows which metric changed.
function formatBaselineJson(data: BaselineFile): string {
  return JSON.stringify(data, null, 2).replace(
    /\[\s*([-\d.e+,\s]*?)\s*\]/g,
    (_all, inner: string) => `[${inner.replace(/\s+/g, '')}]`,
  )
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000
}
