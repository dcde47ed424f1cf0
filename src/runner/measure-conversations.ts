/**
 * The measure stage of `--multi-turn`: conversations run concurrently, each sending its turns in
 * order with the history so far and a think time between turns, during which no concurrency slot
 * is held. Conversation starts follow `--request-rate` and `--burstiness` (inf starts them all at
 * once, as Rust), and with `continueOnFailure` a conversation goes on after a failed turn instead
 * of stopping. A stop is handled as in the measure stage of independent requests: no new turn is
 * sent, the turns in flight get the drain time (or the second interrupt) and are then aborted, and
 * what was measured is returned. Rust: multi_turn.rs.
 */
import PQueue from 'p-queue'
import type { ChatMessage, RequestOutput, RequestRecord } from '../config/records.ts'
import type { Conversation } from '../datasets/conversation.ts'
import type { TurnRecord } from '../report/result/multi-turn.ts'
import { computeSchedule } from '../schedule/index.ts'
import { withFields } from '../with-fields.ts'
import { type LoopMonitor, startLoopMonitor } from './client-health.ts'
import { conversationHealth } from './conversation-health.ts'
import { DEFAULT_DRAIN_MS } from './dispatcher.ts'
import type { Measured, MeasureHooks } from './measure.ts'
import { countOutputTokens } from './output-tokens.ts'
import { type PreparedConversations, type TurnRequest, userMessage } from './prepare-conversations.ts'
import { noRetries } from './retry.ts'
import { settleWithDrain } from './signals.ts'

/** A measured multi-turn run: the turns by conversation, and how long each conversation took. */
export interface MeasuredConversations extends Omit<Measured, 'clock' | 'scheduleIndexes'> {
  /** Sorted by conversation, then turn; `records` holds the same records in that order. */
  turns: TurnRecord[]
  conversationDurationsMs: number[]
}

/** Sends every conversation of a prepared multi-turn run and times its turns. */
export async function measureConversations(
  plan: PreparedConversations,
  hooks: MeasureHooks = {},
): Promise<MeasuredConversations> {
  const { config, conversations, noHistory, tokenizer } = plan
  const multiTurn = plan.multiTurn
  let monitor: LoopMonitor | undefined
  let sleeps: ReturnType<typeof abortableSleeps> | undefined
  try {
    const queue = new PQueue({ concurrency: plan.concurrency })
    const schedule = computeSchedule(conversations.length, config.load, config.seed)
    const turnRecords: TurnRecord[] = []
    const durationsMs: number[] = new Array(conversations.length).fill(0)
    let done = 0
    const aborted = (): boolean => hooks.signal?.aborted === true
    // One controller per turn in flight, so a stop can abort them after the drain time.
    const inFlight = new Set<AbortController>()
    sleeps = abortableSleeps(hooks.signal)
    const sleepUnlessAborted = sleeps.sleep
    monitor = config.clientCheck === 'off' ? undefined : startLoopMonitor()
    // The dispatch lag of a multi-turn run: how late each conversation started against its schedule.
    const startLagsMs: number[] = []
    const startS = performance.now() / 1000

    const sendTurn = async (request: TurnRequest): Promise<RequestOutput | undefined> => {
      // Once stopped, turns still waiting for a slot are not sent.
      if (aborted()) return undefined
      const controller = new AbortController()
      inFlight.add(controller)
      try {
        return await plan.send(request, controller.signal)
      } finally {
        inFlight.delete(controller)
      }
    }

    const runConversation = async (conv: Conversation, c: number): Promise<void> => {
      const waitMs = (startS + schedule.offsetsS[c]!) * 1000 - performance.now()
      if (waitMs > 1) await sleepUnlessAborted(waitMs)
      const convStartMs = performance.now()
      if (!aborted()) startLagsMs.push(convStartMs - (startS + schedule.offsetsS[c]!) * 1000)
      const history: ChatMessage[] = []
      let cumulative = 0
      for (let t = 0; t < conv.turns.length && !aborted(); t++) {
        if (t > 0 && multiTurn.delayMs > 0) await sleepUnlessAborted(multiTurn.delayMs)
        if (aborted()) break
        const turn = conv.turns[t]!
        const messages = noHistory ? [userMessage(turn.message)] : [...history, userMessage(turn.message)]
        const promptLen = noHistory ? turn.messageLen : cumulative + turn.messageLen
        const arrivalTimeS = performance.now() / 1000
        const output = await queue.add(() =>
          sendTurn({
            conversation: conv,
            turn: t,
            messages,
            text: turn.message,
            promptLen,
            outputLen: turn.expectedOutputLen,
          }),
        )
        if (!output) break
        const outputLen = !output.success
          ? 0
          : (output.outputTokens ??
            (tokenizer ? await countOutputTokens(output.generatedText, tokenizer) : 1))
        turnRecords.push({
          conversationId: conv.id,
          conversationIndex: c,
          turnIndex: t,
          record: withFields(output, {
            requestId: `${conv.id}-turn${t}`,
            outputLen,
            arrivalTimeS,
            queueTimeS: Math.max(0, output.startTimeS - arrivalTimeS),
          }),
        })
        hooks.onRequestEnd?.(++done, plan.totalTurns, {
          inFlight: inFlight.size,
          success: output.success,
          elapsedS: performance.now() / 1000 - startS,
          ...(output.success && output.ttftS > 0 ? { ttftS: output.ttftS } : {}),
        })
        if (output.success) {
          if (!noHistory) {
            history.push(userMessage(turn.message), { role: 'assistant', content: output.generatedText })
            cumulative += turn.messageLen + outputLen
          }
        } else if (!multiTurn.continueOnFailure) break
      }
      durationsMs[c] = performance.now() - convStartMs
    }
    await settleWithDrain(Promise.all(conversations.map((conv, c) => runConversation(conv, c))), {
      signal: hooks.signal,
      forceSignal: hooks.forceSignal,
      drainMs: DEFAULT_DRAIN_MS,
      abortInFlight: () => {
        for (const controller of inFlight) controller.abort()
      },
    })
    const endS = performance.now() / 1000
    // Turns are sent from this thread only.
    const health = monitor && conversationHealth(monitor.stop(), startLagsMs, turnRecords, config.load)
    const clientHealth = health && { ...health, httpTransport: plan.httpTransport, clientThreads: 1 }
    turnRecords.sort((a, b) => a.conversationIndex - b.conversationIndex || a.turnIndex - b.turnIndex)
    const records: RequestRecord[] = turnRecords.map((t) => t.record)
    return {
      records,
      startS,
      endS,
      interrupted: aborted(),
      // Turns are never retried.
      retries: noRetries(),
      ...(clientHealth ? { clientHealth } : {}),
      turns: turnRecords,
      conversationDurationsMs: durationsMs,
    }
  } finally {
    monitor?.dispose()
    sleeps?.dispose()
  }
}

/**
 * Sleeps that end early when `signal` aborts, all woken by one abort listener: a listener per
 * sleeping conversation put more than 10 on the run's signal and Node warned of a leak
 * (`MaxListenersExceededWarning`) on every run of more than 10 conversations with a delay.
 */
function abortableSleeps(signal: AbortSignal | undefined): {
  sleep(ms: number): Promise<void>
  dispose(): void
} {
  const pending = new Set<() => void>()
  const wake = (): void => {
    for (const done of pending) done()
  }
  signal?.addEventListener('abort', wake, { once: true })
  return {
    sleep: (ms) =>
      signal?.aborted
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const done = (): void => {
              clearTimeout(timer)
              pending.delete(done)
              resolve()
            }
            const timer = setTimeout(done, ms)
            pending.add(done)
          }),
    dispose: () => signal?.removeEventListener('abort', wake),
  }
}
