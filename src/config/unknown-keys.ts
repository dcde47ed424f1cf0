/**
 * Unknown option keys: plain JavaScript (or `as any`) lets `laod` or `maxConcurency` through the
 * types, so every options object is checked at run time too, with a "did you mean" hint.
 */
import type { ConfigIssue } from '../errors.ts'

/** The closest of `candidates` to `key` (case-insensitive edit distance ≤ 1/3 of its length, at least 2). */
export function didYouMean(key: string, candidates: readonly string[]): string | undefined {
  const lower = key.toLowerCase()
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase())
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  const limit = Math.max(2, Math.floor(key.length / 3))
  return bestDistance <= limit ? best : undefined
}

/**
 * One issue per key of `value` that is not in `known`: `<path> is not an option of <where>; did
 * you mean 'x'?` and the valid keys. `pathOf(key)` names the key in the caller's words.
 */
export function unknownKeyIssues(
  value: object,
  known: readonly string[],
  pathOf: (key: string) => string,
  where: string,
): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue
    const guess = didYouMean(key, known)
    issues.push({
      path: pathOf(key),
      message: `is not an option of ${where}${guess ? `; did you mean '${guess}'?` : ''} (valid: ${known.join(', ')})`,
    })
  }
  return issues
}

// Optimal string alignment distance: a swap of two neighbours counts as one edit (`maxConcurency`).
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[a.length]![b.length]!
}
