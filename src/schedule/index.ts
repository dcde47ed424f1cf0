import type { LoadConfig, RampUpConfig } from '../config/bench-config.ts'
import { createRng } from '../rng.ts'

/** Send offsets (seconds from the run start, non-decreasing) and the rate each request was drawn at. */
export interface Schedule {
  offsetsS: number[]
  ratesPerS: number[]
}

/**
 * Precompute every send offset, as Python's `get_request` does.
 * Python: get_request (vllm/benchmarks/serve.py); Rust: compute_schedule (rate_control.rs).
 * The first request also waits one gap. Without ramp-up the offsets are rescaled so the last one is
 * exactly `n / rate` (PR #21108: the achieved rate used to fall short of the target).
 */
export function computeSchedule(n: number, load: LoadConfig, seed: number): Schedule {
  const rng = createRng(seed)
  const ratesPerS = Array.from({ length: n }, (_, i) => rateAt(i, n, load))
  const offsetsS = new Array<number>(n)
  let total = 0
  for (let i = 0; i < n; i++) {
    total += gapS(ratesPerS[i]!, load.burstiness, rng.gamma)
    offsetsS[i] = total
  }
  if (!load.rampUp && Number.isFinite(load.requestRate) && total > 0) {
    const scale = n / load.requestRate / total
    for (let i = 0; i < n; i++) offsetsS[i] = offsetsS[i]! * scale
  }
  return { offsetsS, ratesPerS }
}

/** The rate request `i` of `n` is drawn at: constant, or interpolated along the ramp. */
export function rateAt(i: number, n: number, load: LoadConfig): number {
  if (!load.rampUp) return load.requestRate
  return rampRate(load.rampUp, i / Math.max(n - 1, 1))
}

export function rampRate(ramp: RampUpConfig, progress: number): number {
  if (ramp.strategy === 'linear') return ramp.startRps + (ramp.endRps - ramp.startRps) * progress
  return ramp.startRps * (ramp.endRps / ramp.startRps) ** progress
}

function gapS(ratePerS: number, burstiness: number, gamma: (shape: number, scale: number) => number): number {
  if (!Number.isFinite(ratePerS)) return 0
  if (ratePerS <= 0) return 0
  if (!Number.isFinite(burstiness)) return 1 / ratePerS
  return gamma(burstiness, 1 / (ratePerS * burstiness))
}
