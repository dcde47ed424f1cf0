/**
 * The cells of `npm run perf -- many-core` (many-core.ts): one measured run each against the one
 * simulator, every client in fresh processes. `servebench serve` with a `--client-threads`
 * setting; `--segment i/n` processes started together with `--start-at` and joined by `servebench
 * merge`; and vLLM's Python client (perf/python-peer.py). A cell that fails is returned with its
 * reason, never thrown: one bad cell must not cost the table.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { percentile } from '../src/metrics/percentile.ts'
import { runChildWithin, type TimedChildOutput } from './child-process.ts'

export const TTFT_MS = 50
export const ITL_MS = 20
export const OUTPUT_TOKENS = 64
const INPUT_TOKENS = 32
/** One request's time on the simulator: TTFT, then 63 gaps. */
export const REQUEST_S = (TTFT_MS + (OUTPUT_TOKENS - 1) * ITL_MS) / 1000

const PERF_DIR = dirname(fileURLToPath(import.meta.url))
const ROOT = join(PERF_DIR, '..')
/** servebench from the sources, in a fresh process with this process's loader (tsx). */
export const SERVEBENCH = [...process.execArgv, join(PERF_DIR, 'servebench-cli.ts')]
const STARTED = /Starting main benchmark run/

/** One row of the table. */
export interface Cell {
  concurrency: number
  client: 'servebench' | 'segments' | 'python'
  /** As the table names it: `servebench, 8 threads`, `4 segment processes × 2 threads, merged`. */
  label: string
  /** `--client-threads` as given (a number or `auto`); per process for segments. */
  threads?: number | 'auto'
  /** The threads the run reports it used (`client_health.client_threads`; segments: all of them). */
  clientThreads?: number
  segments?: number
  requests: number
  completed?: number
  failed?: number
  reqPerS?: number
  /** What a closed loop of this concurrency completes at most: C / one request's time. */
  idealReqPerS: number
  itlP99Ms?: number
  ttftP99Ms?: number
  /** `ok`, `saturated: <reasons>`, or `none` (a client without a self-check). */
  selfCheck: string
  /** Segments: the latest start minus the earliest, ms. */
  startSkewMs?: number
  /** Start-up of the (first) process: from its spawn to "Starting main benchmark run", s. */
  startupS?: number
  wallS: number
  error?: string
}

interface CellSetup {
  simUrl: string
  concurrency: number
  requests: number
  timeoutMs: number
}

/** `servebench serve` with `--client-threads threads` in one fresh process. */
export async function servebenchCell(setup: CellSetup, threads: number | 'auto'): Promise<Cell> {
  const base = baseCell(setup, 'servebench', `servebench, ${threadsLabel(threads)}`)
  const dir = await mkdtemp(join(tmpdir(), 'servebench-many-core-'))
  const startedMs = performance.now()
  try {
    const run = await runChildWithin(
      process.execPath,
      [
        ...SERVEBENCH,
        'serve',
        ...serveFlags(setup, threads),
        '--result-dir',
        dir,
        '--result-filename',
        'run.json',
      ],
      { timeoutMs: setup.timeoutMs, mark: STARTED, cwd: ROOT },
    )
    const result = await readResult(join(dir, 'run.json'), run)
    const health = result.client_health as { saturated: boolean; reasons: string[]; client_threads?: number }
    return {
      ...base,
      threads,
      ...figures(result),
      ...(health?.client_threads !== undefined ? { clientThreads: health.client_threads } : {}),
      selfCheck: health ? (health.saturated ? `saturated: ${health.reasons.join('; ')}` : 'ok') : 'none',
      ...(run.markedAtMs !== undefined ? { startupS: (run.markedAtMs - startedMs) / 1000 } : {}),
      wallS: (performance.now() - startedMs) / 1000,
    }
  } catch (error) {
    return failed(base, error, startedMs)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * `count` segment processes of one run, each `--client-threads threads`, started together at a
 * wall-clock time `leadS` ahead (time enough for their start-up), then merged.
 */
export async function segmentsCell(
  setup: CellSetup,
  count: number,
  threads: number | 'auto',
  leadS: number,
): Promise<Cell> {
  const label = `${count} segment processes × ${threadsLabel(threads)}, merged`
  const base = baseCell(setup, 'segments', label)
  const dir = await mkdtemp(join(tmpdir(), 'servebench-many-core-'))
  const startedMs = performance.now()
  try {
    const startAt = String(Math.round(Date.now() + leadS * 1000))
    const runs = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        runChildWithin(
          process.execPath,
          [
            ...SERVEBENCH,
            'serve',
            ...serveFlags(setup, threads),
            '--segment',
            `${i}/${count}`,
            '--start-at',
            startAt,
            '--result-dir',
            join(dir, `segment-${i}`),
            '--result-filename',
            'run.json',
          ],
          { timeoutMs: setup.timeoutMs, mark: STARTED, cwd: ROOT },
        ),
      ),
    )
    const files: string[] = []
    for (let i = 0; i < count; i++) {
      const own = await readdir(join(dir, `segment-${i}`)).catch(() => [])
      for (const f of own) if (/^run\.segment-\d+-of-\d+\.json$/.test(f)) files.push(join(`segment-${i}`, f))
    }
    if (files.length !== count) {
      const bad = runs.find((r) => r.code !== 0 && r.code !== 4) ?? runs[0]!
      throw new Error(`${files.length} of ${count} segment files written: ${lastLines(bad)}`)
    }
    const merge = await runChildWithin(
      process.execPath,
      [
        ...SERVEBENCH,
        'merge',
        ...files.map((f) => join(dir, f)),
        '--save-result',
        '--result-dir',
        join(dir, 'merged'),
        '--result-filename',
        'merged.json',
      ],
      { timeoutMs: setup.timeoutMs, cwd: ROOT },
    )
    const result = await readResult(join(dir, 'merged', 'merged.json'), merge)
    const segments = result.segments as { start_skew_ms: number; saturated?: number[] }
    const threadsEach = await segmentThreads(dir, count)
    const firstStart = Math.min(...runs.map((r) => r.markedAtMs ?? Number.POSITIVE_INFINITY))
    return {
      ...base,
      threads,
      segments: count,
      ...figures(result),
      ...(threadsEach !== undefined ? { clientThreads: threadsEach } : {}),
      selfCheck: segments.saturated?.length ? `saturated: segments ${segments.saturated.join(', ')}` : 'ok',
      startSkewMs: segments.start_skew_ms,
      ...(Number.isFinite(firstStart) ? { startupS: (firstStart - startedMs) / 1000 } : {}),
      wallS: (performance.now() - startedMs) / 1000,
    }
  } catch (error) {
    return failed(base, error, startedMs)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** vLLM's client (perf/python-peer.py) on `python`, or a row saying why it could not run. */
export async function pythonCell(setup: CellSetup, python: string): Promise<Cell> {
  const base = baseCell(setup, 'python', "vLLM's Python client")
  const startedMs = performance.now()
  try {
    const run = await runChildWithin(
      python,
      [
        'perf/python-peer.py',
        setup.simUrl,
        String(setup.concurrency),
        String(setup.requests),
        String(OUTPUT_TOKENS),
      ],
      { timeoutMs: setup.timeoutMs, cwd: ROOT },
    )
    if (run.code !== 0) throw new Error(lastLines(run))
    const out = JSON.parse(run.stdout) as {
      run_wall_s: number
      http_parser: string
      records: Array<{ success: boolean; ttft_s: number; itl: number[] }>
    }
    const ok = out.records.filter((r) => r.success)
    return {
      ...base,
      label: `${base.label} (aiohttp, ${out.http_parser} parser)`,
      completed: ok.length,
      failed: out.records.length - ok.length,
      reqPerS: ok.length / out.run_wall_s,
      itlP99Ms: percentile(
        ok.flatMap((r) => r.itl.map((s) => s * 1000)),
        99,
      ),
      ttftP99Ms: percentile(
        ok.map((r) => r.ttft_s * 1000),
        99,
      ),
      selfCheck: 'none',
      wallS: (performance.now() - startedMs) / 1000,
    }
  } catch (error) {
    return failed(base, error, startedMs)
  }
}

/** Why `python` cannot run the peer (no interpreter, no aiohttp); undefined when it can. */
export async function pythonMissing(python: string): Promise<string | undefined> {
  const check = await runChildWithin(python, ['-c', 'import aiohttp'], { timeoutMs: 30_000 })
  if (check.code === 0) return undefined
  if (check.code === null) return `${python} cannot be started`
  return `${python} has no aiohttp`
}

/** A row that says why a cell was not measured. */
export function skippedCell(
  setup: Omit<CellSetup, 'timeoutMs' | 'simUrl'>,
  client: Cell['client'],
  label: string,
  why: string,
): Cell {
  return { ...baseCell({ ...setup, simUrl: '', timeoutMs: 0 }, client, label), wallS: 0, error: why }
}

function serveFlags(setup: CellSetup, threads: number | 'auto'): string[] {
  return [
    '--backend',
    'vllm',
    '--base-url',
    setup.simUrl,
    '--model',
    'servebench/sim-model',
    '--tokenizer',
    'cl100k_base',
    '--dataset-name',
    'random',
    '--random-input-len',
    String(INPUT_TOKENS),
    '--random-output-len',
    String(OUTPUT_TOKENS),
    '--num-prompts',
    String(setup.requests),
    '--request-rate',
    'inf',
    '--max-concurrency',
    String(setup.concurrency),
    '--client-threads',
    String(threads),
    '--disable-tqdm',
    '--save-result',
  ]
}

function baseCell(setup: CellSetup, client: Cell['client'], label: string): Omit<Cell, 'wallS'> {
  return {
    concurrency: setup.concurrency,
    client,
    label,
    requests: setup.requests,
    idealReqPerS: setup.concurrency / REQUEST_S,
    selfCheck: 'none',
  }
}

function threadsLabel(threads: number | 'auto'): string {
  return threads === 'auto' ? 'auto' : `${threads} thread${threads === 1 ? '' : 's'}`
}

type ResultJson = Record<string, unknown>

async function readResult(path: string, run: TimedChildOutput): Promise<ResultJson> {
  if (run.timedOut) throw new Error(`timed out; ${lastLines(run)}`)
  try {
    return JSON.parse(await readFile(path, 'utf8')) as ResultJson
  } catch {
    throw new Error(`no result (exit ${run.code}): ${lastLines(run)}`)
  }
}

function figures(result: ResultJson): Partial<Cell> {
  return {
    completed: result.completed as number,
    failed: result.failed as number,
    reqPerS: result.request_throughput as number,
    itlP99Ms: result.p99_itl_ms as number,
    ttftP99Ms: result.p99_ttft_ms as number,
  }
}

/** Every segment's client threads together, from each segment process's own result. */
async function segmentThreads(dir: string, count: number): Promise<number | undefined> {
  let total = 0
  for (let i = 0; i < count; i++) {
    try {
      const own = JSON.parse(await readFile(join(dir, `segment-${i}`, 'run.json'), 'utf8')) as {
        client_health?: { client_threads?: number }
      }
      const threads = own.client_health?.client_threads
      if (threads === undefined) return undefined
      total += threads
    } catch {
      return undefined
    }
  }
  return total
}

function failed(base: Omit<Cell, 'wallS'>, error: unknown, startedMs: number): Cell {
  const message = error instanceof Error ? error.message : String(error)
  return { ...base, wallS: (performance.now() - startedMs) / 1000, error: message }
}

function lastLines(run: { stdout: string; stderr: string }): string {
  const text = `${run.stderr}\n${run.stdout}`.trim().split('\n').slice(-3).join(' | ')
  return text.slice(-400)
}
