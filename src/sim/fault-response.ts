// How each fault changes one response. The generation code writes whole events with `res.write`
// and finishes with `res.end`; for a request with stream faults both are replaced on that one
// response object, so the generation code stays unaware of faults.
import type { ServerResponse } from 'node:http'
import { setTimeout as sleep, setImmediate as yieldTurn } from 'node:timers/promises'
import type { FaultKind, FaultPlan, ResolvedFault } from './faults.ts'
import { sendJson } from './routes/http.ts'

/** The character `utf8-split` appends to each token's text; three bytes in UTF-8. */
export const UTF8_SPLIT_CHAR = '€'

/** The event `malformed-json` inserts: cut off mid-object, so it is not JSON. */
export const MALFORMED_EVENT = 'data: {"choices":[{"index":0,"text":"servebench fault malformed-json"\n\n'

const ERROR_ANSWERS: Partial<Record<FaultKind, { status: number; type: string; message: string }>> = {
  http500: {
    status: 500,
    type: 'InternalServerError',
    message: 'servebench fault http500: injected internal error',
  },
  http429: {
    status: 429,
    type: 'TooManyRequestsError',
    message: 'servebench fault http429: too many requests',
  },
  http503: {
    status: 503,
    type: 'ServiceUnavailableError',
    message: 'servebench fault http503: the model is loading',
  },
}

const SSE_DONE_TEXT = 'data: [DONE]\n\n'

type Action =
  | { kind: 'bytes'; bytes: Buffer; splitAt: number }
  | { kind: 'delay'; ms: number }
  | { kind: 'end' }
  | { kind: 'reset' }

/**
 * Applies a request's fault plan before it is generated: answers an error fault, waits out
 * `slow-headers`, and hooks the stream faults into `res`. False when the request is already
 * answered (or its client left) and must not be generated.
 */
export async function applyFaultPlan(plan: FaultPlan, res: ServerResponse): Promise<boolean> {
  if (plan.error) {
    const answer = ERROR_ANSWERS[plan.error.kind]!
    if (plan.error.retryAfterS !== undefined) res.setHeader('retry-after', String(plan.error.retryAfterS))
    sendJson(res, answer.status, {
      error: { message: answer.message, type: answer.type, param: null, code: answer.status },
    })
    return false
  }
  if (plan.stream.length === 0) return true
  const slow = plan.stream.find((f) => f.kind === 'slow-headers')
  if (slow) {
    await sleep(slow.ms ?? 0)
    if (res.destroyed) return false
  }
  hookStreamFaults(res, plan.stream)
  return true
}

function hookStreamFaults(res: ServerResponse, faults: ResolvedFault[]): void {
  const find = (kind: FaultKind): ResolvedFault | undefined => faults.find((f) => f.kind === kind)
  const reset = find('reset')
  const stall = find('stall')
  const malformed = find('malformed-json')
  const noDone = find('no-done')
  const utf8Split = find('utf8-split') !== undefined
  const pump = createPump(res, find('byte-split') !== undefined)
  let events = 0
  let closed = false

  // Runs after `events` events were queued (0 before the first).
  const afterEvent = (): void => {
    if (malformed && events === malformed.after)
      pump.push({ kind: 'bytes', bytes: Buffer.from(MALFORMED_EVENT), splitAt: 0 })
    if (noDone?.after !== undefined && events >= noDone.after) {
      closed = true
      pump.push({ kind: 'end' })
    } else if (reset && events === reset.after) {
      closed = true
      pump.push({ kind: 'reset' })
    } else if (stall && events === stall.after) pump.push({ kind: 'delay', ms: stall.ms ?? 0 })
  }
  const onEvent = (chunk: unknown): void => {
    if (closed || chunk === undefined || chunk === null || typeof chunk === 'function') return
    let text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8')
    if (text === '') return
    events++
    const splitAt = 0
    if (utf8Split) {
      text = appendToTokenText(text)
      const bytes = Buffer.from(text)
      const at = bytes.indexOf(UTF8_SPLIT_CHAR)
      pump.push({ kind: 'bytes', bytes, splitAt: at >= 0 ? at + 1 : 0 })
    } else pump.push({ kind: 'bytes', bytes: Buffer.from(text), splitAt })
    afterEvent()
  }

  res.write = ((chunk: unknown) => {
    onEvent(chunk)
    return true
  }) as ServerResponse['write']
  res.end = ((chunk?: unknown) => {
    const isDone = chunk === SSE_DONE_TEXT || (Buffer.isBuffer(chunk) && chunk.toString() === SSE_DONE_TEXT)
    if (!(noDone && isDone)) onEvent(chunk)
    if (!closed) {
      closed = true
      pump.push({ kind: 'end' })
    }
    return res
  }) as ServerResponse['end']
  afterEvent()
}

/** Writes queued actions in order, one at a time; faults that wait (stall, split writes) hold the queue. */
function createPump(res: ServerResponse, byteSplit: boolean): { push(action: Action): void } {
  const write = res.write.bind(res) as (chunk: Buffer, callback?: () => void) => boolean
  const end = res.end.bind(res) as () => void
  const queue: Action[] = []
  let running = false
  const run = async (): Promise<void> => {
    running = true
    // Let the caller finish writing the response head before the first action.
    await yieldTurn()
    while (queue.length > 0 && !res.destroyed) {
      const action = queue.shift()!
      if (action.kind === 'delay') await sleep(action.ms)
      else if (action.kind === 'end') end()
      else if (action.kind === 'reset') {
        // Give the events already written time to reach the client, then reset (RST, not FIN).
        await new Promise<void>((resolve) => write(Buffer.alloc(0), () => resolve()))
        await sleep(20)
        if (res.socket) res.socket.resetAndDestroy()
        else res.destroy()
      } else if (byteSplit) {
        for (let i = 0; i < action.bytes.length && !res.destroyed; i++) {
          write(action.bytes.subarray(i, i + 1))
          await yieldTurn()
        }
      } else if (action.splitAt > 0) {
        write(action.bytes.subarray(0, action.splitAt))
        // A timer, not a turn of the loop: the two halves should leave in separate packets.
        await sleep(2)
        write(action.bytes.subarray(action.splitAt))
      } else write(action.bytes)
    }
    running = false
  }
  return {
    push(action) {
      queue.push(action)
      if (!running) void run()
    },
  }
}

/** Appends {@link UTF8_SPLIT_CHAR} to the token text of a choice-bearing event; other events pass unchanged. */
function appendToTokenText(event: string): string {
  if (!event.startsWith('data: {')) return event
  try {
    const message = JSON.parse(event.slice(6)) as { choices?: Array<Record<string, unknown>> }
    const choice = message.choices?.[0]
    if (!choice) return event
    const delta = choice.delta as Record<string, unknown> | undefined
    if (typeof choice.text === 'string' && choice.text !== '') choice.text += UTF8_SPLIT_CHAR
    else if (delta && typeof delta.content === 'string' && delta.content !== '')
      delta.content += UTF8_SPLIT_CHAR
    else return event
    return `data: ${JSON.stringify(message)}\n\n`
  } catch {
    return event
  }
}
