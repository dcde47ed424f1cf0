import { describe, expect, it } from 'vitest'
import { createRng, type Rng } from '../rng.ts'
import { type BlockedRun, blockBootstrapChange, blockBootstrapInterval } from './block-bootstrap.ts'
import { assignBlocks, blockLength } from './blocks.ts'
import { bufferStatistic } from './fast-statistic.ts'
import { percentile, std } from './percentile.ts'

const mean = bufferStatistic('mean')!
const p90 = bufferStatistic('p90')!
// Seeded: 9 of 40 pass, 6 when the run effect also held the baseline runs' own sampling noise.
const MIN_STEADY_PASSES = 9

/**
 * A closed loop of `waves` waves of `c` requests: the requests of a wave share a wave latency
 * (lognormal around `level`) plus a small per-request jitter. Start times are the wave index.
 */
function wavesRun(rng: Rng, waves: number, c: number, level: number): { values: number[]; starts: number[] } {
  const values: number[] = []
  const starts: number[] = []
  for (let w = 0; w < waves; w++) {
    const shared = level * Math.exp(0.3 * rng.normal())
    for (let i = 0; i < c; i++) {
      values.push(shared + 0.5 * rng.normal())
      starts.push(w)
    }
  }
  return { values, starts }
}

describe('assignBlocks', () => {
  it('keeps each closed-loop wave in one block, numbered in start order', () => {
    const starts = [0.2, 0, 0, 0.2, 0.1, 0.1, 0.3, 0.3].flatMap((t) => Array(4).fill(t)) as number[]
    // 32 requests at concurrency 8: L = max(8, ⌈32^(1/3)⌉) = 8 capped at 32 / 8 = 4 → 4 per block.
    expect(blockLength(32, { concurrency: 8 })).toBe(4)
    const ids = assignBlocks(starts, { concurrency: 8 })
    for (let i = 0; i < starts.length; i++)
      for (let j = 0; j < starts.length; j++) if (starts[i] === starts[j]) expect(ids[i]).toBe(ids[j])
    expect(ids[4]).toBe(0)
    expect(ids[0]).toBeGreaterThan(ids[16]!)
  })

  it('grows a block over a burst of equal start times', () => {
    const ids = assignBlocks([0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], {})
    expect([...ids.slice(0, 5)]).toEqual([0, 0, 0, 0, 0])
    expect(ids[5]).toBe(1)
  })

  it('uses n^(1/3) without a concurrency limit and keeps at least 8 blocks', () => {
    expect(blockLength(1000)).toBe(10)
    expect(blockLength(1000, { concurrency: 256 })).toBe(125)
    expect(blockLength(5, { concurrency: 4 })).toBe(1)
  })
})

describe('bufferStatistic', () => {
  it('matches numpy-linear percentiles, mean and std on random data', () => {
    const rng = createRng(3)
    for (const n of [1, 2, 7, 100, 1001]) {
      const xs = Array.from({ length: n }, () => Math.round(rng.exponential(10) * 4) / 4)
      for (const name of ['p0', 'p1', 'p50', 'p90', 'p99', 'p99.9', 'p100']) {
        const buf = Float64Array.from(xs)
        expect(bufferStatistic(name)!(buf, n)).toBeCloseTo(percentile(xs, Number(name.slice(1))), 10)
      }
      expect(bufferStatistic('std')!(Float64Array.from(xs), n)).toBeCloseTo(std(xs), 10)
      expect(bufferStatistic('max')!(Float64Array.from(xs), n)).toBe(Math.max(...xs))
    }
    expect(bufferStatistic('p101')).toBeUndefined()
    expect(bufferStatistic('avg')).toBeUndefined()
  })
})

describe('block bootstrap on correlated waves', () => {
  // 40 waves of 8 requests sharing a wave latency: the true mean is E[level·e^(0.3Z)] = level·e^0.045.
  const truth = 100 * Math.exp(0.045)
  const trials = 300

  function coverage(perRequest: boolean): number {
    const rng = createRng(11)
    let covered = 0
    for (let t = 0; t < trials; t++) {
      const { values, starts } = wavesRun(rng, 40, 8, 100)
      const blocks = perRequest
        ? values.map((_, i) => i)
        : Array.from(assignBlocks(starts, { concurrency: 8 }))
      const iv = blockBootstrapInterval([{ values, blocks }], mean, { resamples: 400, seed: t })
      if (iv.lower <= truth && truth <= iv.upper) covered++
    }
    return covered / trials
  }

  it('per-request resampling under-covers the mean', () => {
    expect(coverage(true)).toBeLessThan(0.7)
  })

  it('resampling whole waves covers it', () => {
    expect(coverage(false)).toBeGreaterThanOrEqual(0.9)
  })
})

describe('blockBootstrapChange', () => {
  const rng = createRng(5)
  const toRun = ({ values, starts }: { values: number[]; starts: number[] }): BlockedRun => ({
    values,
    blocks: assignBlocks(starts, { concurrency: 8 }),
  })
  const base = toRun(wavesRun(rng, 60, 8, 100))
  const same = toRun(wavesRun(rng, 60, 8, 100))
  const slower = toRun(wavesRun(rng, 60, 8, 150))

  it('is reproducible for a seed', () => {
    const a = blockBootstrapChange([base], [slower], p90, 'lower-is-better', { seed: 9 })
    const b = blockBootstrapChange([base], [slower], p90, 'lower-is-better', { seed: 9 })
    expect(a).toEqual(b)
  })

  it('gives a 50% slower p90 a small p-value and an interval around its change', () => {
    const c = blockBootstrapChange([base], [slower], p90, 'lower-is-better')
    expect(c.relative).toBeCloseTo(
      percentile(Array.from(slower.values), 90) / percentile(Array.from(base.values), 90) - 1,
      10,
    )
    expect(c.interval[0]).toBeGreaterThan(0)
    expect(c.interval[0]).toBeLessThan(c.relative)
    expect(c.interval[1]).toBeGreaterThan(c.relative)
    expect(c.pValue).toBeLessThan(0.01)
    expect(c.current).toBeCloseTo(percentile(Array.from(slower.values), 90), 10)
  })

  it('turns the p-value around for a higher-is-better metric', () => {
    const c = blockBootstrapChange([base], [slower], mean, 'higher-is-better')
    expect(c.pValue).toBeGreaterThan(0.99)
  })

  it('does not flag an unchanged run', () => {
    const c = blockBootstrapChange([base], [same], mean, 'lower-is-better')
    expect(c.interval[0]).toBeLessThan(0)
    expect(c.interval[1]).toBeGreaterThan(0)
  })

  it('widens the interval by the spread between the runs of a multi-run baseline', () => {
    // Three baseline runs whose levels differ by ±10% (a server that drifts between runs).
    const runs = [90, 100, 110].map((level) => toRun(wavesRun(rng, 60, 8, level)))
    const pooled: BlockedRun = {
      values: runs.flatMap((r) => Array.from(r.values)),
      blocks: runs.flatMap((r, k) => Array.from(r.blocks).map((b) => b + 1000 * k)),
    }
    const hierarchical = blockBootstrapChange(runs, [same], mean, 'lower-is-better')
    const flat = blockBootstrapChange([pooled], [same], mean, 'lower-is-better')
    const width = (c: { interval: [number, number] }): number => c.interval[1] - c.interval[0]
    expect(width(hierarchical)).toBeGreaterThan(1.3 * width(flat))
  })

  it('keeps an unchanged run of a drifting machine from failing when the baseline has several runs', () => {
    // Every run lands ±10% off (a random run effect): within-run resampling cannot see that.
    const runOf = (seed: number): BlockedRun => {
      const r = createRng(seed)
      const level = 100 * Math.exp(0.1 * r.normal())
      return toRun(wavesRun(r, 40, 8, level))
    }
    let withRuns = 0
    let withOne = 0
    for (let trial = 0; trial < 80; trial++) {
      const runs = [0, 1, 2, 3, 4].map((k) => runOf(1000 * trial + k))
      const current = [runOf(1000 * trial + 99)]
      const significant = (c: { pValue: number }): boolean => c.pValue < 0.05
      if (significant(blockBootstrapChange(runs, current, mean, 'lower-is-better', { resamples: 300 })))
        withRuns++
      if (
        significant(
          blockBootstrapChange(runs.slice(0, 1), current, mean, 'lower-is-better', { resamples: 300 }),
        )
      )
        withOne++
    }
    // One-sided at 5%: about 4 of 80 by chance. Five runs give 11: their spread is itself estimated
    // from five values, and the run effect is the spread their sampling noise does not explain (it
    // gave 8 with that noise counted twice, and every unchanged run of a quiet machine undecided).
    // One run gives 21, and resampling the runs alone (no run effect) gave 19.
    expect(withRuns).toBeLessThanOrEqual(12)
    expect(withOne).toBeGreaterThanOrEqual(16)
  })

  it('passes an unchanged run of a steady machine: the baseline runs differ only by their own noise', () => {
    // The example gate's shape: 12 waves of 8 per run, three baseline runs at the same level.
    let passed = 0
    for (let trial = 0; trial < 40; trial++) {
      const r = createRng(500 + trial)
      const runs = [0, 1, 2].map(() => toRun(wavesRun(r, 12, 8, 100)))
      const current = [toRun(wavesRun(r, 36, 8, 100))]
      const c = blockBootstrapChange(runs, current, mean, 'lower-is-better', { resamples: 300 })
      // The run effect left is small beside the runs' own noise, and the worse end within 10%.
      if (c.interval[1] <= 0.1) passed++
    }
    expect(passed).toBeGreaterThanOrEqual(MIN_STEADY_PASSES)
  })

  it('names an empty side', () => {
    expect(() => blockBootstrapChange([{ values: [], blocks: [] }], [same], mean, 'lower-is-better')).toThrow(
      'baseline sample is empty',
    )
  })
})
