/**
 * Which undecided checks another round can serve: a check whose estimate of the requests that
 * would decide it is within the budget is extended for; one beyond any budget left is set aside,
 * and said so once, with what would decide it instead. See docs/statistics.md "Deciding by
 * extending the run".
 */
import type { Verdict, VerdictCheck } from '../shared/meta.ts'
import { formatRunSpread } from './baseline-format.ts'

/** An undecided check as the probe saw it. */
export interface UndecidedCheck {
  matcher: Verdict['matcher']
  check: VerdictCheck
  /** Requests (all rounds together) that would decide it; Infinity when none would. */
  neededRequests: number
}

/** The undecided checks of a probe, split into those more requests can decide and those they cannot. */
export interface ExtensionPlan {
  /** Checks in reach: another round is sized for them. */
  served: number
  /** Requests all rounds together need to decide every check in reach. */
  neededRequests: number
  /** Checks set aside now, with the note to give (once per check). */
  setAside: Array<{ key: string; note: string }>
}

/** The key a check is set aside under: its matcher and metric. */
export function checkKey(c: Pick<UndecidedCheck, 'matcher' | 'check'>): string {
  return `${c.matcher} ${c.check.metric}`
}

/**
 * Plans the next round: the checks whose need is within `reachable` requests (all rounds
 * together: those measured and those the budget has left) are served; the others, and those
 * already `aside`, are not.
 */
export function planExtension(
  undecided: readonly UndecidedCheck[],
  reachable: number,
  aside: ReadonlySet<string>,
): ExtensionPlan {
  let neededRequests = 0
  let served = 0
  const setAside: ExtensionPlan['setAside'] = []
  for (const u of undecided) {
    const key = checkKey(u)
    if (aside.has(key)) continue
    if (u.neededRequests <= reachable) {
      served++
      neededRequests = Math.max(neededRequests, u.neededRequests)
    } else setAside.push({ key, note: undecidableNote(u, reachable) })
  }
  return { served, neededRequests, setAside }
}

/**
 * `p99 TTFT (toMatchBaseline) cannot be decided within the budget (2,000 requests in all): about
 * 85,831 would decide it; it is left inconclusive. To decide it, try the mean or p90 instead of
 * p99, a wider tolerance or more requests (verdicts.budget.requests)`.
 */
export function undecidableNote(u: UndecidedCheck, reachable: number): string {
  const spread = Number.isFinite(u.neededRequests) ? undefined : u.check.runSpread
  const need = Number.isFinite(u.neededRequests)
    ? `about ${Math.ceil(u.neededRequests).toLocaleString('en-US')} would decide it`
    : spread
      ? `no number of requests would decide it (${formatRunSpread(spread)})`
      : 'no number of requests would decide it (the estimate sits on the limit)'
  const suggestions: string[] = []
  const pct = /^p(\d+(?:\.\d+)?)\b/.exec(u.check.metric)
  if (pct && Number(pct[1]) > 90) suggestions.push(`the mean or p90 instead of p${pct[1]}`)
  if (u.matcher === 'toMatchBaseline') suggestions.push('a wider tolerance')
  else suggestions.push('a bound further from the estimate')
  if (spread) suggestions.push('a baseline recorded on a quieter machine')
  if (Number.isFinite(u.neededRequests)) suggestions.push('more requests (verdicts.budget.requests)')
  const head = `${u.check.metric} (${u.matcher}) cannot be decided within the budget (${reachable.toLocaleString('en-US')} requests in all): ${need}`
  return `${head}; it is left inconclusive. To decide it, try ${joinOr(suggestions)}`
}

function joinOr(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}
