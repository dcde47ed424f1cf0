import type { ChangeEstimate } from '../../metrics/block-bootstrap.ts'

/** Text of baseline comparisons: changes, intervals, p-values and requests needed. */

/** `+15.4% (95% CI +12.0% … +18.9%, p<0.001)`; `confidence` names the interval's level. */
export function formatChange(
  c: Pick<ChangeEstimate, 'relative' | 'interval' | 'pValue'>,
  confidence = 0.95,
): string {
  const level = `${Number((confidence * 100).toFixed(1))}% CI`
  return `${pct(c.relative)} (${level} ${pct(c.interval[0])} … ${pct(c.interval[1])}, ${formatP(c.pValue)})`
}

/**
 * `p<0.001`, or the one-sided p-value cut (not rounded) to two significant digits, so a p-value
 * just below a threshold never prints as the threshold (`p=0.0029`, `p=0.024`, `p=0.13`).
 */
export function formatP(p: number): string {
  if (p < 0.001) return 'p<0.001'
  const scale = 10 ** (1 - Math.floor(Math.log10(p)))
  return `p=${Number((Math.floor(p * scale + 1e-9) / scale).toPrecision(2))}`
}

/** `about 1,900 requests would decide it`, or why none would. */
export function formatNeeded(n: number, runSpread?: readonly [number, number]): string {
  if (Number.isFinite(n)) return `about ${Math.ceil(n).toLocaleString('en-US')} requests would decide it`
  if (runSpread) return `no number of requests would decide it: ${formatRunSpread(runSpread)}`
  return 'the estimate sits on the limit; more requests alone would not decide it'
}

/** `the baseline's runs differ from one another by -8.0% to +11.2%`: the spread requests do not narrow. */
export function formatRunSpread([low, high]: readonly [number, number]): string {
  return `the baseline's runs differ from one another by ${pct(low)} to ${pct(high)}`
}

/** A relative change as a signed percentage with one decimal; `n/a` when undefined. */
export function pct(x: number): string {
  if (!Number.isFinite(x)) return 'n/a'
  return `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`
}
