import { performance } from 'node:perf_hooks'
import { createFixedEngine } from './fixed-engine.ts'
import type { ResolvedSimOptions } from './options.ts'
import { StepClock, type StepLagStats } from './step-clock.ts'

/** One request as the engine sees it. The engine owns timing; the request owns writing. */
export interface EngineSequence {
  /** Prompt tokens to prefill before the first token. */
  readonly promptTokens: number
  /** Sequences this request runs as (one per prompt of a batched completions request). */
  readonly width: number
  /**
   * Called in the step that produced this request's next token (one per sequence of its width).
   * Returns true when the request is finished; it is then removed.
   */
  onToken(): boolean
}

/** The simulator's scheduler: continuous batching, or the fixed-timing model for tests. */
export interface SimEngine {
  /** Queues a request whose body was fully read at `receivedAtMs` (performance.now() time). */
  submit(seq: EngineSequence, receivedAtMs: number): void
  /** Frees a request's slot (client gone); no effect once it has finished. */
  abort(seq: EngineSequence): void
  /** Sequences running (prefill or decode), as `vllm:num_requests_running`. */
  runningCount(): number
  /** Sequences queued for a slot, as `vllm:num_requests_waiting`. */
  waitingCount(): number
  lag(): StepLagStats
  close(): void
}

/** Creates the engine the options select: fixed timing when `ttftMs` and `itlMs` are set, else batching. */
export function createEngine(options: ResolvedSimOptions): SimEngine {
  return options.fixed ? createFixedEngine(options.fixed) : new BatchingEngine(options)
}

interface Slot {
  seq: EngineSequence
  prefillRemaining: number
  state: 'waiting' | 'running' | 'done'
}

/**
 * Continuous batching driven by one timer per step, after vLLM's scheduler: admit waiting
 * requests up to maxNumSeqs, spend the token budget on one decode token per running sequence
 * and then on chunked prefill, and emit the step's tokens when the step ends.
 * Step time = decodeBaseMs + decodeMsPerSeq × sequences in the batch + prefillMsPerToken × prefill tokens.
 */
class BatchingEngine implements SimEngine {
  private readonly options: ResolvedSimOptions
  private readonly slots = new Map<EngineSequence, Slot>()
  private waiting: Slot[] = []
  private running: Slot[] = []
  private runningWidth = 0
  private waitingWidth = 0
  /** The slots that produce a token when the current step ends. */
  private producers: Slot[] = []
  private readonly clock = new StepClock((scheduledMs, nowMs) => this.endStep(scheduledMs, nowMs))

  constructor(options: ResolvedSimOptions) {
    this.options = options
  }

  submit(seq: EngineSequence): void {
    const slot: Slot = { seq, prefillRemaining: seq.promptTokens, state: 'waiting' }
    this.slots.set(seq, slot)
    this.waiting.push(slot)
    this.waitingWidth += seq.width
    if (!this.clock.armed) this.startStep(performance.now(), 0)
  }

  abort(seq: EngineSequence): void {
    const slot = this.slots.get(seq)
    if (!slot || slot.state === 'done') return
    this.remove(slot)
    this.waiting = this.waiting.filter((s) => s !== slot)
    this.running = this.running.filter((s) => s !== slot)
  }

  runningCount(): number {
    return this.runningWidth
  }

  waitingCount(): number {
    return this.waitingWidth
  }

  lag(): StepLagStats {
    return this.clock.lag()
  }

  close(): void {
    this.clock.cancel()
    for (const slot of this.slots.values()) slot.state = 'done'
    this.slots.clear()
    this.waiting = []
    this.running = []
    this.producers = []
    this.runningWidth = 0
    this.waitingWidth = 0
  }

  private remove(slot: Slot): void {
    const wasRunning = slot.state === 'running'
    slot.state = 'done'
    this.slots.delete(slot.seq)
    if (wasRunning) this.runningWidth -= slot.seq.width
    else this.waitingWidth -= slot.seq.width
  }

  /** Plans a step that starts at `startMs` (or now, when the schedule has fallen a full step behind). */
  private startStep(startMs: number, lagMs: number): void {
    const { maxNumSeqs, maxNumBatchedTokens, decodeBaseMs, decodeMsPerSeq, prefillMsPerToken } = this.options
    let admitted = 0
    while (admitted < this.waiting.length) {
      const slot = this.waiting[admitted]!
      // A request wider than maxNumSeqs still runs alone rather than waiting forever.
      if (this.runningWidth > 0 && this.runningWidth + slot.seq.width > maxNumSeqs) break
      slot.state = 'running'
      this.running.push(slot)
      this.runningWidth += slot.seq.width
      this.waitingWidth -= slot.seq.width
      admitted++
    }
    if (admitted > 0) this.waiting = this.waiting.slice(admitted)
    if (this.running.length === 0) return

    const producers: Slot[] = []
    let budget = maxNumBatchedTokens
    let batchWidth = 0
    let prefillTokens = 0
    for (const slot of this.running) {
      if (slot.prefillRemaining > 0) continue
      producers.push(slot)
      budget -= slot.seq.width
      batchWidth += slot.seq.width
    }
    for (const slot of this.running) {
      if (slot.prefillRemaining === 0 || budget <= 0) continue
      const take = Math.min(slot.prefillRemaining, budget)
      slot.prefillRemaining -= take
      budget -= take
      prefillTokens += take
      batchWidth += slot.seq.width
      if (slot.prefillRemaining === 0) producers.push(slot)
    }
    this.producers = producers
    const durationMs = decodeBaseMs + decodeMsPerSeq * batchWidth + prefillMsPerToken * prefillTokens
    // Keep an absolute timeline so timer jitter does not add up, unless a whole step was lost.
    const begin = lagMs > durationMs ? startMs + lagMs : startMs
    this.clock.arm(begin + durationMs)
  }

  private endStep(scheduledMs: number, nowMs: number): void {
    let finished = false
    for (const slot of this.producers) {
      if (slot.state === 'done') continue
      let done = true
      try {
        done = slot.seq.onToken()
      } catch {
        // A request that cannot be written any more is dropped; the engine keeps running.
      }
      if (done) {
        this.remove(slot)
        finished = true
      }
    }
    this.producers = []
    if (finished) this.running = this.running.filter((s) => s.state !== 'done')
    this.startStep(scheduledMs, nowMs - scheduledMs)
  }
}
