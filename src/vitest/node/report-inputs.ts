/**
 * What the reporter's HTML report and history read besides the run itself: a benchmark's stored
 * baseline samples and the commit the run measured.
 */
import { execFileSync } from 'node:child_process'
import type { SummaryBenchmark } from '../../report/summary/run-summary.ts'
import { baselineFilePath, readBaseline } from '../runtime/baseline-store.ts'

// The stored baseline's samples of a benchmark compared with one (its runs pooled), for the report;
// nothing when it has no comparison or the file cannot be read.
export function baselineSamples(
  baselineDir: string,
  root: string,
  b: Pick<SummaryBenchmark, 'file' | 'name' | 'verdicts'>,
): { baseline?: Partial<Record<'ttft' | 'itl' | 'e2el', number[]>> } {
  if (!b.verdicts.some((v) => v.matcher === 'toMatchBaseline' && !v.recording && v.checks.length > 0))
    return {}
  try {
    const stored = readBaseline(baselineFilePath(baselineDir, root, b.file), b.name)
    if (stored.status !== 'found') return {}
    const pooled = (family: string): number[] => stored.record.runs.flatMap((r) => r.samples[family] ?? [])
    return { baseline: { ttft: pooled('ttft'), itl: pooled('itl'), e2el: pooled('e2el') } }
  } catch {
    return {}
  }
}

// The commit a history line is about: CI's own variable, else the checkout's HEAD, else unknown.
export function commitOf(root: string): string | null {
  const fromEnv = process.env.GITHUB_SHA ?? process.env.SERVEBENCH_COMMIT
  if (fromEnv) return fromEnv
  try {
    return (
      execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || null
    )
  } catch {
    return null
  }
}
