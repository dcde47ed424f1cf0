/**
 * How verdicts rank and how they are marked, for every renderer of a verdict (matcher messages,
 * console lines, Markdown, the HTML report, annotations, JUnit). Pure.
 */
import type { BenchmarkState, VerdictValue } from './run-summary.ts'

/** Verdicts from best to worst: the worst of several is the one furthest along. */
export const SEVERITY: readonly VerdictValue[] = ['pass', 'inconclusive', 'invalid', 'fail']

/** The worst of `values` by {@link SEVERITY}; `pass` when there are none. */
export function worstVerdict(values: Iterable<VerdictValue>): VerdictValue {
  let worst: VerdictValue = 'pass'
  for (const value of values) if (SEVERITY.indexOf(value) > SEVERITY.indexOf(worst)) worst = value
  return worst
}

/** What a check prints as its verdict in text: `✓`, `✗`, `?` (inconclusive) or `!` (invalid). */
export const MARKS: Readonly<Record<VerdictValue, string>> = {
  pass: '✓',
  fail: '✗',
  inconclusive: '?',
  invalid: '!',
}

/** A verdict's mark in Markdown. */
export const VERDICT_ICONS: Readonly<Record<VerdictValue, string>> = {
  pass: '✅',
  fail: '❌',
  inconclusive: '❔',
  invalid: '⚠️',
}

/** A benchmark's state in Markdown. */
export const STATE_ICONS: Readonly<Record<BenchmarkState, string>> = {
  passed: '✅',
  failed: '❌',
  skipped: '⏭️',
  pending: '⏸️',
}
