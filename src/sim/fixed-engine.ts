import type { EngineSequence, SimEngine } from './engine.ts'
import { StepClock } from './step-clock.ts'

interface Slot {
  seq: EngineSequence
  dueMs: number
  done: boolean
}

/**
 * Fixed timing for tests: the first token exactly `ttftMs` after the body was read, then one
 * every `itlMs`, with no queueing and no slowdown under load. One timer serves every request:
 * it is armed for the earliest due token, and each firing writes every token that is due.
 *
 * A token written more than half an ITL late (the event loop was busy) restarts its stream's
 * schedule from itself, as a server's late step delays the steps after it. Catching up instead
 * wrote the tokens that fell due during the stall back to back: a stream whose first token came
 * late had its TPOT shrunk by the delay, so an unchanged rerun could differ from its baseline by
 * 25% in mean TPOT (p < 0.001) on a busy machine. A smaller lag keeps the fixed grid, so timer
 * jitter does not add up.
 */
export function createFixedEngine(timing: { ttftMs: number; itlMs: number }): SimEngine {
  const slots = new Map<EngineSequence, Slot>()
  const heap: Slot[] = []
  let width = 0

  const rearm = (): void => {
    while (heap.length > 0 && heap[0]!.done) popMin(heap)
    if (heap.length === 0) clock.cancel()
    else clock.arm(heap[0]!.dueMs)
  }

  const finish = (slot: Slot): void => {
    slot.done = true
    slots.delete(slot.seq)
    width -= slot.seq.width
  }

  const clock = new StepClock((_scheduledMs, nowMs) => {
    while (heap.length > 0 && heap[0]!.dueMs <= nowMs) {
      const slot = popMin(heap)
      if (slot.done) continue
      let done = true
      try {
        done = slot.seq.onToken()
      } catch {
        // A request that cannot be written any more is dropped.
      }
      if (done) finish(slot)
      else {
        const lateMs = nowMs - slot.dueMs
        slot.dueMs = (lateMs > timing.itlMs / 2 ? nowMs : slot.dueMs) + timing.itlMs
        push(heap, slot)
      }
    }
    rearm()
  })

  return {
    submit(seq, receivedAtMs) {
      const slot: Slot = { seq, dueMs: receivedAtMs + timing.ttftMs, done: false }
      slots.set(seq, slot)
      width += seq.width
      push(heap, slot)
      if (heap[0] === slot) clock.arm(slot.dueMs)
    },
    abort(seq) {
      const slot = slots.get(seq)
      if (slot && !slot.done) finish(slot)
    },
    runningCount: () => width,
    waitingCount: () => 0,
    lag: () => clock.lag(),
    cacheStats: () => ({ kvCacheUsagePerc: 0, numPreemptions: 0, prefixCacheQueries: 0, prefixCacheHits: 0 }),
    resetPrefixCache: () => {},
    close() {
      clock.cancel()
      for (const slot of slots.values()) slot.done = true
      slots.clear()
      heap.length = 0
      width = 0
    },
  }
}

function push(heap: Slot[], slot: Slot): void {
  heap.push(slot)
  let i = heap.length - 1
  while (i > 0) {
    const parent = (i - 1) >> 1
    if (heap[parent]!.dueMs <= slot.dueMs) break
    heap[i] = heap[parent]!
    i = parent
  }
  heap[i] = slot
}

function popMin(heap: Slot[]): Slot {
  const top = heap[0]!
  const last = heap.pop()!
  if (heap.length > 0) {
    let i = 0
    for (;;) {
      const left = 2 * i + 1
      if (left >= heap.length) break
      const right = left + 1
      const child = right < heap.length && heap[right]!.dueMs < heap[left]!.dueMs ? right : left
      if (heap[child]!.dueMs >= last.dueMs) break
      heap[i] = heap[child]!
      i = child
    }
    heap[i] = last
  }
  return top
}
