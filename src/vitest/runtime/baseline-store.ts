import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join, relative } from 'node:path'
import { BaselineError } from '../../errors.ts'
import type { ServeBenchResult } from '../shared/meta.ts'
import {
  LATENCY_METRICS,
  latencySamplesMs,
  THROUGHPUT_UNITS,
  type ThroughputKey,
  windowThroughputs,
} from './samples.ts'

/**
 * Baselines on disk, one JSON file per suite file (like `__snapshots__/x.snap`), keyed by the
 * benchmark's full name. Synchronous on purpose: `toMatchBaseline` is a sync matcher, so users need
 * no `await`. Runs in the pool worker (the matcher's thread); plain `node:fs`, no Vitest state.
 */

/** What is kept of one run: the per-request distributions the comparison resamples. */
export interface BaselineRecord {
  /** `configFingerprint` of the run that recorded it. */
  fingerprint: string
  recordedAt: string
  /** `ttft|tpot|itl|e2el` in ms; throughput keys as per-window rates. */
  samples: Record<string, number[]>
  /** Headline numbers of the result, for people reading the file. */
  metrics: Record<string, number>
}

export interface BaselineFile {
  version: 1
  benchmarks: Record<string, BaselineRecord>
}

/** `<baselineDir>/<suite path relative to root>.json`. */
export function baselineFilePath(baselineDir: string, root: string, suiteFile: string): string {
  const rel = isAbsolute(suiteFile) ? relative(root, suiteFile) : suiteFile
  return join(baselineDir, `${rel.replaceAll('..', '__')}.json`)
}

/** The stored baseline of one benchmark, or undefined when there is none. */
export function readBaseline(file: string, name: string): BaselineRecord | undefined {
  return readFile(file).benchmarks[name]
}

/** Stores (or replaces) one benchmark's baseline, keeping the others of the file. */
export function writeBaseline(file: string, name: string, record: BaselineRecord): void {
  const data = readFile(file)
  data.benchmarks[name] = record
  const sorted: BaselineFile = {
    version: 1,
    benchmarks: Object.fromEntries(
      Object.entries(data.benchmarks).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ),
  }
  try {
    mkdirSync(dirname(file), { recursive: true })
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, `${formatBaselineJson(sorted)}\n`)
    renameSync(tmp, file)
  } catch (cause) {
    throw new BaselineError(`Cannot write baseline file ${file}: ${(cause as Error).message}`, { cause })
  }
}

/** The baseline record of a result: every latency distribution and per-window throughputs. */
export function baselineFromResult(result: ServeBenchResult, fingerprint: string): BaselineRecord {
  const samples: Record<string, number[]> = {}
  for (const m of LATENCY_METRICS) samples[m] = latencySamplesMs(result, m).map(round4)
  for (const k of Object.keys(THROUGHPUT_UNITS) as ThroughputKey[])
    samples[k] = windowThroughputs(result, k).map(round4)
  const metrics: Record<string, number> = {}
  for (const [k, v] of Object.entries(result)) {
    if (typeof v === 'number' && (/_ms$/.test(k) || k.endsWith('throughput'))) metrics[k] = v
  }
  return { fingerprint, recordedAt: new Date().toISOString(), samples, metrics }
}

function readFile(file: string): BaselineFile {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, benchmarks: {} }
    throw new BaselineError(`Cannot read baseline file ${file}: ${(cause as Error).message}`, { cause })
  }
  let data: Partial<BaselineFile>
  try {
    data = JSON.parse(text) as Partial<BaselineFile>
  } catch (cause) {
    throw new BaselineError(`Baseline file ${file} is not valid JSON; delete it or rerun with -u`, { cause })
  }
  if (data?.version !== 1 || typeof data.benchmarks !== 'object' || data.benchmarks === null) {
    throw new BaselineError(
      `Baseline file ${file} is not a servebench baseline (version 1); delete it or rerun with -u`,
    )
  }
  return data as BaselineFile
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
