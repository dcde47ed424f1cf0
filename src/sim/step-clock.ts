import { performance } from 'node:perf_hooks'

/** Step lag: how late engine steps ran compared with their schedule. */
export interface StepLagStats {
  /** Timer callbacks run so far. */
  steps: number
  /** Largest lag seen. */
  maxMs: number
  /** Mean lag over all steps. */
  meanMs: number
  /** Mean lag over the last {@link RECENT_STEPS} steps. */
  recentMeanMs: number
}

/** Window of the recent mean. */
export const RECENT_STEPS = 128

// Node truncates timer delays to whole milliseconds and libuv's clock is cached, so a timer can
// fire up to ~1 ms early; a short spin keeps every event at or after its scheduled time.
const MAX_SPIN_MS = 1

/**
 * One re-armable timer with sub-millisecond targets on the `performance.now()` clock, which
 * measures how late each firing is. An engine owns exactly one.
 */
export class StepClock {
  private timer: NodeJS.Timeout | undefined
  private targetMs = 0
  private steps = 0
  private maxLagMs = 0
  private sumLagMs = 0
  private readonly recent = new Float64Array(RECENT_STEPS)
  private readonly onFire: (scheduledMs: number, nowMs: number) => void

  constructor(onFire: (scheduledMs: number, nowMs: number) => void) {
    this.onFire = onFire
  }

  /** Fires `onFire` at `targetMs` (performance.now() time), replacing any pending firing. */
  arm(targetMs: number): void {
    this.cancel()
    this.targetMs = targetMs
    const delayMs = Math.max(0, Math.ceil(targetMs - performance.now()))
    this.timer = setTimeout(this.fire, delayMs)
  }

  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  get armed(): boolean {
    return this.timer !== undefined
  }

  lag(): StepLagStats {
    const n = Math.min(this.steps, RECENT_STEPS)
    let recentSum = 0
    for (let i = 0; i < n; i++) recentSum += this.recent[i]!
    return {
      steps: this.steps,
      maxMs: this.maxLagMs,
      meanMs: this.steps === 0 ? 0 : this.sumLagMs / this.steps,
      recentMeanMs: n === 0 ? 0 : recentSum / n,
    }
  }

  private readonly fire = (): void => {
    this.timer = undefined
    let now = performance.now()
    const early = this.targetMs - now
    if (early > MAX_SPIN_MS) {
      this.arm(this.targetMs)
      return
    }
    while (now < this.targetMs) now = performance.now()
    const lagMs = now - this.targetMs
    this.recent[this.steps % RECENT_STEPS] = lagMs
    this.steps++
    this.sumLagMs += lagMs
    if (lagMs > this.maxLagMs) this.maxLagMs = lagMs
    this.onFire(this.targetMs, now)
  }
}
