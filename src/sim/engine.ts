import { performance } from 'node:perf_hooks'
import { createFixedEngine } from './fixed-engine.ts'
import { createKvAllocation, type KvAllocation, KvCache, type SimCacheStats } from './kv-cache.ts'
import type { ResolvedSimOptions } from './options.ts'
import { blockHashes, PrefixCache } from './prefix-cache.ts'
import { StepClock, type StepLagStats } from './step-clock.ts'

/** One request as the engine sees it. The engine owns timing; the request owns writing. */
export interface EngineSequence {
  /** Prompt tokens to prefill before the first token. */
  readonly promptTokens: number
  /** Sequences this request runs as (one per prompt of a batched completions request). */
  readonly width: number
  /** The prompt's token ids, for prefix caching; given only for single-sequence requests. */
  readonly promptTokenIds?: readonly number[]
  /**
   * Called in the step that produced this request's next token (one per sequence of its width).
   * Returns true when the request is finished; it is then removed.
   */
  onToken(): boolean
  /** Told the prompt tokens its prefix-cache hit skipped, when the request is admitted. */
  onCachedTokens?(tokens: number): void
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
  /** KV-cache usage, preemptions and prefix-cache counters (zero in fixed mode). */
  cacheStats(): SimCacheStats
  /** Forgets every cached prefix (`POST /reset_prefix_cache`); nothing to forget in fixed mode. */
  resetPrefixCache(): void
  close(): void
}

/** Creates the engine the options select: fixed timing when `ttftMs` and `itlMs` are set, else batching. */
export function createEngine(options: ResolvedSimOptions): SimEngine {
  return options.fixed ? createFixedEngine(options.fixed) : new BatchingEngine(options)
}

interface Slot {
  seq: EngineSequence
  /** Tokens still to compute before the next token: the prompt, or prompt and output after a preemption. */
  prefillRemaining: number
  state: 'waiting' | 'running' | 'done'
  /** Tokens produced per sequence so far. */
  generated: number
  /** Tokens whose KV the slot holds once the current step ends. */
  computed: number
  kv: KvAllocation
}

/**
 * Continuous batching driven by one timer per step, after vLLM's scheduler: admit waiting
 * requests up to maxNumSeqs, spend the token budget on one decode token per running sequence
 * and then on chunked prefill, and emit the step's tokens when the step ends.
 * Step time = decodeBaseMs + decodeMsPerSeq × sequences in the batch + prefillMsPerToken × prefill tokens.
 * KV blocks bound admission; a running sequence that cannot grow preempts the newest one, which
 * goes back to the head of the queue and recomputes its tokens (vLLM v1's recompute preemption).
 */
/** What one step computes, built while it is planned. */
interface StepPlan {
  budget: number
  batchWidth: number
  prefillTokens: number
  producers: Slot[]
  scheduled: Slot[]
}

class BatchingEngine implements SimEngine {
  private readonly options: ResolvedSimOptions
  private readonly slots = new Map<EngineSequence, Slot>()
  private waiting: Slot[] = []
  private running: Slot[] = []
  private runningWidth = 0
  private waitingWidth = 0
  /** The slots that produce a token when the current step ends. */
  private producers: Slot[] = []
  /** The slots that compute tokens in the current step (their full prompt blocks are cached after it). */
  private scheduled: Slot[] = []
  private readonly kv: KvCache
  private preemptions = 0
  private readonly clock = new StepClock((scheduledMs, nowMs) => this.endStep(scheduledMs, nowMs))

  constructor(options: ResolvedSimOptions) {
    this.options = options
    const prefix = options.enablePrefixCaching ? new PrefixCache() : undefined
    this.kv = new KvCache(options.numGpuBlocks, options.blockSize, prefix)
  }

  submit(seq: EngineSequence): void {
    const ids = this.kv.prefix && seq.width === 1 ? seq.promptTokenIds : undefined
    const slot: Slot = {
      seq,
      prefillRemaining: seq.promptTokens,
      state: 'waiting',
      generated: 0,
      computed: 0,
      kv: createKvAllocation(ids ? blockHashes(ids, this.options.blockSize) : undefined),
    }
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

  cacheStats(): SimCacheStats {
    return {
      kvCacheUsagePerc: this.kv.usage(),
      numPreemptions: this.preemptions,
      prefixCacheQueries: this.kv.prefix?.queriedTokens ?? 0,
      prefixCacheHits: this.kv.prefix?.hitTokens ?? 0,
    }
  }

  resetPrefixCache(): void {
    this.kv.resetPrefixCache()
  }

  close(): void {
    this.clock.cancel()
    for (const slot of this.slots.values()) slot.state = 'done'
    this.slots.clear()
    this.waiting = []
    this.running = []
    this.producers = []
    this.scheduled = []
    this.runningWidth = 0
    this.waitingWidth = 0
  }

  private remove(slot: Slot): void {
    const wasRunning = slot.state === 'running'
    slot.state = 'done'
    this.slots.delete(slot.seq)
    this.kv.release(slot.kv)
    if (wasRunning) this.runningWidth -= slot.seq.width
    else this.waitingWidth -= slot.seq.width
  }

  /** Plans a step that starts at `startMs` (or now, when the schedule has fallen a full step behind). */
  private startStep(startMs: number, lagMs: number): void {
    const { maxNumSeqs, maxNumBatchedTokens, decodeBaseMs, decodeMsPerSeq, prefillMsPerToken } = this.options
    const plan: StepPlan = {
      budget: maxNumBatchedTokens,
      batchWidth: 0,
      prefillTokens: 0,
      producers: [],
      scheduled: [],
    }
    // Running sequences first, in admission order: one token per decoding sequence, the budget
    // left to chunked prefill. A sequence that cannot get a block preempts the newest one.
    let preempted = false
    for (let i = 0; i < this.running.length; i++) {
      const slot = this.running[i]!
      if (slot.prefillRemaining > 0 && plan.budget <= 0) continue
      const take = slot.prefillRemaining > 0 ? Math.min(slot.prefillRemaining, plan.budget) : slot.seq.width
      const before = this.preemptions
      const fits = this.reserve(slot, slot.computed + take)
      if (this.preemptions > before) preempted = true
      if (fits) this.schedule(plan, slot, take)
    }
    // vLLM admits nothing in a step that had to preempt.
    if (!preempted) this.admit(plan, maxNumSeqs)
    this.producers = plan.producers
    this.scheduled = plan.scheduled
    if (this.running.length === 0) return
    const durationMs =
      decodeBaseMs + decodeMsPerSeq * plan.batchWidth + prefillMsPerToken * plan.prefillTokens
    // Keep an absolute timeline so timer jitter does not add up, unless a whole step was lost.
    const begin = lagMs > durationMs ? startMs + lagMs : startMs
    this.clock.arm(begin + durationMs)
  }

  /** Admits waiting requests in order while sequences, budget and KV blocks allow. */
  private admit(plan: StepPlan, maxNumSeqs: number): void {
    let admitted = 0
    while (admitted < this.waiting.length && plan.budget > 0) {
      const slot = this.waiting[admitted]!
      // A request wider than maxNumSeqs still runs alone rather than waiting forever.
      if (this.runningWidth > 0 && this.runningWidth + slot.seq.width > maxNumSeqs) break
      const target = slot.prefillRemaining
      const hit = this.kv.matchPrefix(slot.kv, target)
      const hitTokens = hit.length * this.options.blockSize
      const take = Math.min(target - hitTokens, plan.budget)
      // A request that cannot fit even in an empty cache (only a wide one can) runs over-committed.
      if (!this.kv.canAdmit(hit, hitTokens + take) && this.running.length > 0) break
      this.kv.admit(slot.kv, hit, hitTokens + take, target)
      slot.state = 'running'
      slot.computed = hitTokens
      slot.seq.onCachedTokens?.(hitTokens)
      slot.prefillRemaining = target - hitTokens
      this.running.push(slot)
      this.runningWidth += slot.seq.width
      this.waitingWidth -= slot.seq.width
      admitted++
      this.schedule(plan, slot, take)
    }
    if (admitted > 0) this.waiting = this.waiting.slice(admitted)
  }

  /** Adds `take` tokens of `slot` (prefill, or one per decoding sequence) to the step. */
  private schedule(plan: StepPlan, slot: Slot, take: number): void {
    plan.batchWidth += slot.seq.width
    plan.budget -= take
    slot.computed += take
    plan.scheduled.push(slot)
    if (slot.prefillRemaining === 0) {
      plan.producers.push(slot)
      return
    }
    slot.prefillRemaining -= take
    plan.prefillTokens += take
    if (slot.prefillRemaining === 0) plan.producers.push(slot)
  }

  /**
   * Grows `slot`'s blocks to `tokens`, preempting the newest running sequences until they fit.
   * False when `slot` itself was preempted; a slot left alone runs even if it does not fit.
   */
  private reserve(slot: Slot, tokens: number): boolean {
    while (!this.kv.grow(slot.kv, tokens)) {
      const victim = this.running[this.running.length - 1]!
      if (victim === slot && this.running.length === 1) return true
      this.preempt(victim)
      if (victim === slot) return false
    }
    return true
  }

  /** Recompute preemption: free the newest running slot's blocks and queue it first to start over. */
  private preempt(slot: Slot): void {
    this.running.pop()
    this.kv.release(slot.kv)
    slot.state = 'waiting'
    slot.computed = 0
    slot.prefillRemaining = slot.seq.promptTokens + slot.seq.width * slot.generated
    this.runningWidth -= slot.seq.width
    this.waitingWidth += slot.seq.width
    this.waiting.unshift(slot)
    this.preemptions++
  }

  private endStep(scheduledMs: number, nowMs: number): void {
    for (const slot of this.scheduled) if (slot.state === 'running') this.kv.commit(slot.kv, slot.computed)
    this.scheduled = []
    let finished = false
    for (const slot of this.producers) {
      if (slot.state === 'done') continue
      slot.generated++
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
