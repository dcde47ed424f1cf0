import type { ConfigIssue } from '../errors.ts'
import { type BenchConfig, POOLING_BACKENDS, type SegmentConfig } from './bench-config.ts'
import type { Reader } from './resolve.ts'

/** The most client threads `--client-threads` accepts. */
export const MAX_CLIENT_THREADS = 64

/**
 * `--client-threads`, `--segment` (with its environment fallbacks) and `--start-at`: how the client
 * spreads one run over threads and over processes. Fills `config`, reports bad values to `issues`.
 */
export function resolveClientFlags(
  read: Reader,
  config: BenchConfig,
  issues: ConfigIssue[],
  env: Readonly<Record<string, string | undefined>>,
): void {
  const threads = read.string('--client-threads')
  if (threads !== undefined) {
    const value = parseClientThreads(threads)
    if (value === undefined) {
      issues.push({
        path: '--client-threads',
        message: `must be an integer from 1 to ${MAX_CLIENT_THREADS}, or auto (got "${threads}")`,
      })
    } else config.clientThreads = value
  }
  const segment = segmentFrom(read.string('--segment'), env, issues)
  if (segment) config.segment = segment
  const startAt = read.string('--start-at')
  if (startAt !== undefined) {
    const ms = Number(startAt)
    if (!/^\d+(\.\d+)?$/.test(startAt.trim()) || !Number.isFinite(ms) || ms < 1e12) {
      issues.push({
        path: '--start-at',
        message: `must be a Unix time in milliseconds, e.g. $(( $(date +%s) * 1000 + 10000 )) for 10 s from now (got "${startAt}")`,
      })
    } else config.startAtEpochMs = ms
  }
  if (config.segment && POOLING_BACKENDS.includes(config.endpoint.backend)) {
    issues.push({
      path: config.segment.source,
      message: `applies to generation backends; servebench merge cannot join pooling results (--backend ${config.endpoint.backend})`,
    })
  }
  // `auto` (the default) sends these modes from one thread; a thread count is refused with them.
  if (config.segment || (typeof config.clientThreads === 'number' && config.clientThreads > 1)) {
    const mode = config.multiTurn
      ? '--multi-turn'
      : config.sweep
        ? 'a sweep'
        : config.numRuns > 1
          ? '--num-runs'
          : undefined
    if (mode) {
      issues.push({
        path: config.segment ? config.segment.source : '--client-threads',
        message: `applies to a single run; it cannot be combined with ${mode}`,
      })
    }
  }
}

function parseClientThreads(raw: string): number | 'auto' | undefined {
  if (raw.trim() === 'auto') return 'auto'
  if (!/^\d+$/.test(raw.trim())) return undefined
  const n = Number(raw)
  return n >= 1 && n <= MAX_CLIENT_THREADS ? n : undefined
}

/**
 * The segment: `--segment i/n`, else `SERVEBENCH_SEGMENT=i/n`, else a Kubernetes Indexed Job's
 * `JOB_COMPLETION_INDEX` with `SERVEBENCH_SEGMENT_COUNT` (the job's `completions`). `i` is 0-based.
 */
export function segmentFrom(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  issues: ConfigIssue[],
): SegmentConfig | undefined {
  if (flag !== undefined) return parseSegment(flag, '--segment', issues)
  const fromEnv = env.SERVEBENCH_SEGMENT
  if (fromEnv !== undefined && fromEnv !== '') return parseSegment(fromEnv, 'SERVEBENCH_SEGMENT', issues)
  const index = env.JOB_COMPLETION_INDEX
  const count = env.SERVEBENCH_SEGMENT_COUNT
  if (index !== undefined && index !== '' && count !== undefined && count !== '')
    return parseSegment(`${index}/${count}`, 'JOB_COMPLETION_INDEX', issues)
  return undefined
}

function parseSegment(raw: string, source: string, issues: ConfigIssue[]): SegmentConfig | undefined {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw)
  const index = Number(match?.[1])
  const count = Number(match?.[2])
  if (!match || count < 1 || index >= count) {
    const what =
      source === 'JOB_COMPLETION_INDEX'
        ? `JOB_COMPLETION_INDEX and SERVEBENCH_SEGMENT_COUNT must give an index below the count (got ${raw})`
        : `must be i/n with 0 <= i < n (0-based, as JOB_COMPLETION_INDEX), e.g. 0/4 … 3/4 (got "${raw}")`
    issues.push({ path: source, message: what })
    return undefined
  }
  return { index, count, source }
}
