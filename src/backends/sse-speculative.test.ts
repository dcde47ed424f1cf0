import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isCompleteJson } from './bracket-scan.ts'
import { createSseParser } from './sse.ts'

const encoder = new TextEncoder()

describe('speculative flush of an event of several data lines', () => {
  it('emits a JSON value split over data lines once it is complete, whatever the chunking', () => {
    const lineArb = fc.array(fc.constantFrom('{', '}', '[', ']', '"', '\\', 'a', ' ', ':', ','), {
      minLength: 1,
      maxLength: 8,
    })
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
        (lines, cuts) => {
          const values = lines.map((chars) => chars.join(''))
          const bytes = encoder.encode(values.map((v) => `data: ${v}\n`).join(''))
          const parser = createSseParser()
          const seen: string[] = []
          let at = 0
          // After each chunk, what the parser emitted is what a whole re-scan of the pending
          // event would: the first prefix of the lines that is complete JSON.
          for (let i = 0; at < bytes.length; i++) {
            const size = cuts[i % cuts.length]!
            seen.push(...parser.push(bytes.subarray(at, at + size)))
            at += size
          }
          seen.push(...parser.end())
          expect(seen).toEqual(expectedEvents(bytes, cuts))
        },
      ),
      { seed: 7_321, numRuns: 400 },
    )
  })
})

/**
 * The events of a stream of `data:` lines fed in chunks of `cuts` bytes, by the rule of the
 * speculative flush read naively: after each chunk, the pending text (the complete lines, and the
 * partial data line) is emitted when it is one complete JSON value; what is left is emitted at the end.
 */
function expectedEvents(bytes: Uint8Array, cuts: number[]): string[] {
  const text = new TextDecoder().decode(bytes)
  const events: string[] = []
  let pending: string[] = []
  let lineStart = 0
  let discard = false
  let at = 0
  const flush = (partial: string | undefined): boolean => {
    const candidate = [...pending, ...(partial === undefined ? [] : [partial])].join('\n')
    const last = candidate.trimEnd() === candidate ? candidate.at(-1) : undefined
    if ((last === '}' || last === ']') && isCompleteJson(candidate)) {
      events.push(candidate)
      pending = []
      return true
    }
    return false
  }
  for (let i = 0; at < text.length; i++) {
    const end = Math.min(text.length, at + cuts[i % cuts.length]!)
    for (let k = at; k < end; k++) {
      if (text[k] !== '\n') continue
      const line = text.slice(lineStart, k)
      lineStart = k + 1
      if (discard) discard = false
      else pending.push(line.slice('data: '.length))
    }
    at = end
    if (discard) continue
    const partial = lineStart < at ? text.slice(lineStart, at) : undefined
    if (partial !== undefined && !partial.startsWith('data:')) continue
    if (partial === undefined && pending.length === 0) continue
    const value = partial === undefined ? undefined : partial.slice(partial.startsWith('data: ') ? 6 : 5)
    if (flush(value) && partial !== undefined) discard = true
  }
  if (pending.length > 0) events.push(pending.join('\n'))
  return events
}
