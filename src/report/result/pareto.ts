/**
 * The Pareto frontier of a sweep: output tokens/s per user against output tokens/s per GPU, as
 * `vllm bench sweep plot_pareto` computes it (vllm/benchmarks/sweep/plot_pareto.py). The user
 * count is the run's `--user-count-var` (default `max_concurrency`), else `request_rate`, else the
 * observed `max_concurrent_requests`; the GPU count is `--gpu-count-var`, else the product of the
 * tensor, pipeline and data parallel sizes found in the run (1 when none is). Pure.
 */

/** One run placed on the trade-off. */
export interface ParetoPoint {
  tokensPerUser: number
  tokensPerGpu: number
  userCount: number
  gpuCount: number
  /** The run's index in the list given. */
  index: number
}

/** The options of {@link paretoPoints}. */
export interface ParetoOptions {
  /** The result key holding the user count. @default 'max_concurrency' */
  userCountVar?: string | null
  /** The result key holding the GPU count. @default none: the parallel sizes */
  gpuCountVar?: string | null
}

/**
 * Every run with a user count, placed on the trade-off; `skipped` counts the runs without one.
 * Throws a `RangeError` naming the keys when a run has no numeric `output_throughput`.
 */
export function paretoPoints(
  runs: ReadonlyArray<Record<string, unknown>>,
  options: ParetoOptions = {},
): { points: ParetoPoint[]; skipped: number } {
  const userVar = options.userCountVar === undefined ? 'max_concurrency' : options.userCountVar
  const points: ParetoPoint[] = []
  let skipped = 0
  runs.forEach((run, index) => {
    const throughput = numeric(run, ['output_throughput'])
    if (throughput === undefined) {
      throw new RangeError(
        `Cannot find throughput metric 'output_throughput' in run data. Available keys: ${Object.keys(run).sort().join(', ')}`,
      )
    }
    const userCount =
      numeric(run, [...(userVar ? [userVar] : []), 'request_rate'], false) ??
      numeric(run, ['max_concurrent_requests'], false)
    if (userCount === undefined) {
      skipped++
      return
    }
    const gpuCount = gpuCountOf(run, options.gpuCountVar ?? null)
    points.push({
      tokensPerUser: throughput / userCount,
      tokensPerGpu: throughput / gpuCount,
      userCount,
      gpuCount,
      index,
    })
  })
  return { points, skipped }
}

/**
 * The points no other point beats on both axes (more tokens per user and more per GPU), in
 * order of tokens per user. Python: _pareto_frontier (sorted by x then y, both descending; a
 * point is kept when its y is at least the best y so far, within 1e-9).
 */
export function paretoFrontier(points: readonly ParetoPoint[], epsilon = 1e-9): ParetoPoint[] {
  const sorted = [...points].sort((a, b) =>
    b.tokensPerUser !== a.tokensPerUser ? b.tokensPerUser - a.tokensPerUser : b.tokensPerGpu - a.tokensPerGpu,
  )
  const frontier: ParetoPoint[] = []
  let best = Number.NEGATIVE_INFINITY
  for (const p of sorted) {
    if (p.tokensPerGpu >= best - epsilon) {
      frontier.push(p)
      best = Math.max(best, p.tokensPerGpu)
    }
  }
  return frontier.sort((a, b) => a.tokensPerUser - b.tokensPerUser)
}

function gpuCountOf(run: Record<string, unknown>, gpuVar: string | null): number {
  const direct = gpuVar ? numeric(run, [gpuVar], false) : undefined
  if (direct) return direct
  let world = 1
  for (const keys of [
    ['tensor_parallel_size', 'tp'],
    ['pipeline_parallel_size', 'pp'],
    ['data_parallel_size', 'dp'],
  ]) {
    const size = numeric(run, keys)
    if (size) world *= size
  }
  return world
}

// Python: _first_present and _get_numeric. The first key present (dashes or underscores) decides,
// even when its value is null; "inf" and numeric strings are read as numbers.
function numeric(
  run: Record<string, unknown>,
  keys: readonly string[],
  allowZero = true,
): number | undefined {
  for (const key of keys) {
    for (const candidate of new Set([key, key.replaceAll('_', '-'), key.replaceAll('-', '_')])) {
      if (!(candidate in run)) continue
      const value = run[candidate]
      if (value === null || value === undefined) return undefined
      const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN
      if (typeof value === 'string' && /^[+-]?inf(inity)?$/i.test(value.trim())) {
        return value.trim().startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY
      }
      if (Number.isNaN(n)) {
        throw new RangeError(
          `Expected numeric value for one of ${keys.join(', ')}, but found ${JSON.stringify(value)}`,
        )
      }
      if (!allowZero && n === 0) return undefined
      return n
    }
  }
  return undefined
}
