import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { JsonScan, type JsonScanResult, MAX_JSON_DEPTH } from './json-scan.ts'

/** Scans `text` fed in pieces cut at `cuts` (byte offsets). */
function scan(text: string | Buffer, cuts: number[] = []): JsonScanResult {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text
  const scanner = new JsonScan()
  let at = 0
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    scanner.push(bytes.subarray(at, cut))
    at = cut
  }
  return scanner.finish()
}

/** What JSON.parse says of `text`: valid or not, and `usage.prompt_tokens` of a top-level object. */
function reference(text: string): { valid: boolean; promptTokens?: unknown } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { valid: false }
  }
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
  const usage = isObject(value) ? value.usage : undefined
  if (!isObject(usage) || !Object.hasOwn(usage, 'prompt_tokens')) return { valid: true }
  return { valid: true, promptTokens: usage.prompt_tokens }
}

function expectAgrees(text: string, cuts: number[]): void {
  const got = scan(text, cuts)
  const want = reference(text)
  expect(got.valid).toBe(want.valid)
  if (!got.valid || !want.valid) return
  const value = want.promptTokens
  if (typeof value === 'object' && value !== null) expect(got.promptTokens).toEqual({})
  else expect(got.promptTokens).toEqual(value)
}

describe('JsonScan', () => {
  it('agrees with JSON.parse on JSON values and on their mutations, whatever the chunking', () => {
    const usage = fc.record(
      { prompt_tokens: fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null), fc.jsonValue()) },
      { requiredKeys: [] },
    )
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record({
        data: fc.jsonValue({ maxDepth: 3 }),
        usage: fc.oneof(usage, fc.jsonValue({ maxDepth: 2 })),
      }),
    )
    const text = fc
      .tuple(body, fc.constantFrom(0, 2))
      .map(([value, indent]) => JSON.stringify(value, null, indent) ?? 'null')
    const mutated = fc
      .tuple(
        text,
        fc.nat(),
        fc.constantFrom('', ',', '}', ']', '"', '\\', '0', '-', '.', 'e', ' ', '\u0001', 'tru', '{"a":'),
      )
      .map(([t, at, insert]) => {
        const i = at % (t.length + 1)
        return at % 2 === 0 ? t.slice(0, i) + insert + t.slice(i) : t.slice(0, i) + insert + t.slice(i + 1)
      })
    fc.assert(
      fc.property(fc.oneof(text, mutated), fc.array(fc.nat({ max: 400 }), { maxLength: 6 }), (t, cuts) =>
        expectAgrees(t, cuts),
      ),
      { seed: 8_317, numRuns: 3_000 },
    )
  })

  it('reads the last usage.prompt_tokens, an escaped key, and nothing deeper down', () => {
    expect(scan('{"usage":{"prompt_tokens":3},"usage":{"prompt_tokens":7}}')).toEqual({
      valid: true,
      promptTokens: 7,
    })
    expect(scan('{"usage":{"prompt_tokens":3},"usage":null}')).toEqual({ valid: true })
    expect(scan('{"us\\u0061ge":{"prompt\\u005ftokens":-5}}')).toEqual({ valid: true, promptTokens: -5 })
    expect(scan('{"data":{"usage":{"prompt_tokens":9}}}')).toEqual({ valid: true })
    expect(scan('[{"usage":{"prompt_tokens":9}}]')).toEqual({ valid: true })
    expect(scan('{"usage":{"prompt_tokens":1e300}}')).toEqual({ valid: true, promptTokens: 1e300 })
  })

  it('refuses what JSON.parse refuses, saying where', () => {
    expect(scan('')).toEqual({ valid: false, error: 'unexpected end of the body at byte 0' })
    expect(scan('{"data": [')).toEqual({ valid: false, error: 'unexpected end of the body at byte 10' })
    expect(scan('<html>')).toEqual({ valid: false, error: 'unexpected "<" at byte 0' })
    expect(scan('{"a": 01}')).toEqual({ valid: false, error: 'unexpected "1" at byte 7' })
    expect(scan('{"a": 1.}')).toEqual({ valid: false, error: 'unexpected "}" at byte 8' })
    expect(scan(Buffer.from([0x1f, 0x8b, 0x08]))).toEqual({
      valid: false,
      error: 'unexpected byte 0x1f at byte 0',
    })
    expect(scan(`${'['.repeat(MAX_JSON_DEPTH + 1)}`).valid).toBe(false)
  })

  it('holds nothing of the body: a 64 MiB array of numbers is scanned, not kept', () => {
    const scanner = new JsonScan()
    scanner.push(Buffer.from('{"data":[{"embedding":['))
    const piece = Buffer.from('0.0123456789,'.repeat(5_000))
    for (let fed = 0; fed < 64 * 1024 * 1024; fed += piece.length) scanner.push(piece)
    scanner.push(Buffer.from('1]}],"usage":{"prompt_tokens":8}}'))
    expect(scanner.finish()).toEqual({ valid: true, promptTokens: 8 })
  })
})
