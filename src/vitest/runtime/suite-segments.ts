/**
 * Execution segments for suites. `SERVEBENCH_SEGMENT=i/n vitest bench` (or an Indexed Job's
 * `JOB_COMPLETION_INDEX` with `SERVEBENCH_SEGMENT_COUNT`) makes each benchmark send its share of the
 * schedule and write a segment file, `<fingerprint>.segment-<i>-of-<n>.json`, into
 * `SERVEBENCH_SEGMENT_DIR`; its assertions are not run on the share. Then
 * `SERVEBENCH_MERGE_SEGMENTS=<dir> vitest bench` sends nothing: each benchmark merges its segment
 * files from that folder and its assertions judge all the requests together.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SegmentConfig } from '../../config/bench-config.ts'
import { segmentFrom } from '../../config/resolve-client-flags.ts'
import { ConfigError, type ConfigIssue } from '../../errors.ts'
import { writeSegmentFile } from '../../report/files/write.ts'
import { mergeSegments } from '../../report/result/merge-segments.ts'
import { parsePythonJson } from '../../report/result/py-json.ts'
import type { SegmentFile } from '../../report/result/segment-file.ts'
import type { RunOutcome } from '../../runner/run-benchmark.ts'

/** Where `SERVEBENCH_SEGMENT` suites write their segment files unless `SERVEBENCH_SEGMENT_DIR` says. @default '.servebench/segments' */
export const DEFAULT_SEGMENT_DIR = '.servebench/segments'

/** What the environment asks of a suite run: send a segment, replay merged segments, or neither. */
export type SuiteSegmentMode =
  | { kind: 'segment'; segment: SegmentConfig; dir: string }
  | { kind: 'replay'; dir: string }
  | undefined

/** Reads `SERVEBENCH_MERGE_SEGMENTS`, `SERVEBENCH_SEGMENT` (and the Indexed Job pair), `SERVEBENCH_SEGMENT_DIR`. */
export function suiteSegmentMode(env: Readonly<Record<string, string | undefined>>): SuiteSegmentMode {
  const replay = env.SERVEBENCH_MERGE_SEGMENTS
  if (replay) return { kind: 'replay', dir: replay }
  const issues: ConfigIssue[] = []
  const segment = segmentFrom(undefined, env, issues)
  if (issues.length > 0) throw new ConfigError(issues)
  return segment
    ? { kind: 'segment', segment, dir: env.SERVEBENCH_SEGMENT_DIR || DEFAULT_SEGMENT_DIR }
    : undefined
}

/** Writes a benchmark's segment file into `dir`; returns its path. */
export function writeSuiteSegment(file: SegmentFile, dir: string): Promise<string> {
  // writeSegmentFile names it after a result file: `<fingerprint>.json` → `<fingerprint>.segment-i-of-n.json`.
  return writeSegmentFile(file, join(dir, `${file.fingerprint}.json`))
}

/**
 * The merged run of a benchmark's segment files in `dir` (by its fingerprint), as a run outcome,
 * so the suite's checks judge it as if it had just been measured. No file is an error naming the
 * folder and fingerprint.
 */
export async function replaySegments(fingerprint: string, dir: string): Promise<RunOutcome> {
  let names: string[]
  try {
    names = (await readdir(dir)).filter((n) => n.startsWith(`${fingerprint}.segment-`) && n.endsWith('.json'))
  } catch (error) {
    throw new ConfigError([{ path: 'SERVEBENCH_MERGE_SEGMENTS', message: `${dir} cannot be read` }], {
      cause: error,
    })
  }
  if (names.length === 0) {
    throw new ConfigError([
      {
        path: 'SERVEBENCH_MERGE_SEGMENTS',
        message: `${dir} holds no segment file of this benchmark (${fingerprint}.segment-*.json): run it with SERVEBENCH_SEGMENT=i/n first`,
      },
    ])
  }
  const files = await Promise.all(
    names.sort().map(async (name) => {
      const path = join(dir, name)
      return { path, value: parsePythonJson(await readFile(path, 'utf8')) }
    }),
  )
  const merged = mergeSegments(files)
  return {
    result: merged.result,
    records: merged.records,
    kind: 'generation',
    interrupted: merged.interrupted,
    retries: { retries: 0, retriedRequests: 0, recovered: 0 },
  }
}
