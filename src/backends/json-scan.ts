/**
 * A JSON body checked as it streams in, without keeping it: a pooling answer must be JSON (what
 * Python's `response.json()` accepts), but all the client needs from it is `usage.prompt_tokens`.
 * Parsing the whole body held it three times over (bytes, text, objects): four 50 MB embedding
 * answers at once took the client to 634 MB. The scan holds one entry per nesting level and the
 * few bytes of the keys and the value it looks for, so an answer of any size costs a few KiB.
 *
 * It accepts exactly the JSON of RFC 8259, as `JSON.parse` does, byte by byte: the structural
 * characters are ASCII, so the UTF-8 text inside strings needs no decoding.
 */

/** What the scan found once the body ended. */
export type JsonScanResult =
  /** `promptTokens`: the value of `usage.prompt_tokens` (the last one, as `JSON.parse` keeps), if present. */
  { valid: true; promptTokens?: unknown } | { valid: false; error: string }

/** Deeper nesting is refused, as Python's `json` refuses it (a RecursionError). */
export const MAX_JSON_DEPTH = 10_000

// Longest key or value kept to compare or read; a longer one is read through, not kept.
const MAX_KEPT_BYTES = 256

const S_VALUE = 0
const S_AFTER_VALUE = 1
const S_KEY_OR_END = 2
const S_KEY = 3
const S_COLON = 4
const S_VALUE_OR_END = 5
const S_STRING = 6
const S_ESCAPE = 7
const S_HEX = 8
const S_NUMBER = 9
const S_LITERAL = 10
const S_DONE = 11

// The number grammar: after '-', after a leading 0, integer digits, after '.', fraction digits,
// after 'e', after its sign, exponent digits. A number may end only in N_ZERO, N_INT, N_FRAC, N_EXP.
const N_MINUS = 0
const N_ZERO = 1
const N_INT = 2
const N_DOT = 3
const N_FRAC = 4
const N_E = 5
const N_SIGN = 6
const N_EXP = 7

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d

const LITERALS = ['true', 'false', 'null'].map((text) => Buffer.from(text))

/** An incremental JSON validator that also reads `usage.prompt_tokens` of a top-level object. */
export class JsonScan {
  private state = S_VALUE
  /** Bytes fed so far: the offset of the byte being read. */
  private at = 0
  /** One entry per open container: true for an object. */
  private readonly objects: boolean[] = []
  private error: string | undefined
  private stringIsKey = false
  private hexLeft = 0
  private literal: Buffer = LITERALS[0]!
  private literalAt = 0
  private numberState = N_MINUS
  // What is watched: the key just read at depth 1 or 2, whether the value being read is
  // `usage.prompt_tokens`, and what it was.
  private key: number[] = []
  private keyLong = false
  private lastKey = ''
  private usageOpen = false
  private capturing = false
  private captured: number[] = []
  private capturedLong = false
  private found: { raw: string } | { container: true } | { long: true } | undefined

  /** Feeds the next bytes of the body. */
  push(bytes: Uint8Array): void {
    const base = this.at
    const end = bytes.length
    let i = 0
    while (i < end && this.error === undefined) {
      // Fast paths for what an embedding answer is made of: digits, and string bytes not kept.
      if (this.state === S_NUMBER && !this.capturing) {
        const n = this.numberState
        if (n === N_INT || n === N_FRAC || n === N_EXP) {
          while (i < end && bytes[i]! >= 0x30 && bytes[i]! <= 0x39) i++
          if (i === end) break
        }
      } else if (this.state === S_STRING && !this.stringIsKey && !this.capturing) {
        for (let c = bytes[i]!; c !== QUOTE && c !== BACKSLASH && c >= 0x20; c = bytes[i]!) {
          if (++i === end) break
        }
        if (i === end) break
      }
      this.at = base + i
      this.byte(bytes[i]!)
      i++
    }
    this.at = base + end
  }

  /** Ends the body: valid JSON (with `usage.prompt_tokens` when it has one), or why not. */
  finish(): JsonScanResult {
    if (this.error === undefined && this.state === S_NUMBER && this.objects.length === 0) this.endNumber()
    if (this.error !== undefined) return { valid: false, error: this.error }
    if (this.state !== S_DONE) return { valid: false, error: `unexpected end of the body at byte ${this.at}` }
    const found = this.found
    if (found === undefined) return { valid: true }
    if ('raw' in found) return { valid: true, promptTokens: JSON.parse(found.raw) as unknown }
    // Not a count either way: an object or array, or a value too long to be one.
    return { valid: true, promptTokens: 'container' in found ? {} : `(${MAX_KEPT_BYTES}+ bytes)` }
  }

  private fail(code: number): void {
    const shown =
      code >= 0x20 && code < 0x7f ? `"${String.fromCharCode(code)}"` : `byte 0x${code.toString(16)}`
    this.error = `unexpected ${shown} at byte ${this.at}`
  }

  private byte(code: number): void {
    const state = this.state
    if (state === S_STRING) {
      if (code === QUOTE) this.endString()
      else if (code < 0x20) this.fail(code)
      else {
        this.keepString(code)
        if (code === BACKSLASH) this.state = S_ESCAPE
      }
    } else if (state === S_NUMBER) {
      this.numberByte(code)
    } else if (isSpace(code)) {
      if (state === S_ESCAPE || state === S_HEX || state === S_LITERAL) this.fail(code)
    } else if (state === S_VALUE) {
      this.startValue(code)
    } else if (state === S_VALUE_OR_END) {
      if (code === CLOSE_ARRAY) this.close(false, code)
      else this.startValue(code)
    } else if (state === S_AFTER_VALUE) {
      this.afterValue(code)
    } else if (state === S_KEY_OR_END || state === S_KEY) {
      if (code === CLOSE_OBJECT && state === S_KEY_OR_END) this.close(true, code)
      else if (code !== QUOTE) this.fail(code)
      else {
        this.stringIsKey = true
        this.key = []
        this.keyLong = false
        this.state = S_STRING
      }
    } else if (state === S_COLON) {
      if (code !== 0x3a) this.fail(code)
      else this.beforeMemberValue()
    } else if (state === S_ESCAPE) {
      this.escapeByte(code)
    } else if (state === S_HEX) {
      if (!isHex(code)) this.fail(code)
      else {
        this.keepString(code)
        if (--this.hexLeft === 0) this.state = S_STRING
      }
    } else if (state === S_LITERAL) {
      if (code !== this.literal[this.literalAt]) this.fail(code)
      else {
        this.keepValue(code)
        if (++this.literalAt === this.literal.length) this.endValue()
      }
    } else {
      this.fail(code) // S_DONE: only spaces may follow the value.
    }
  }

  private escapeByte(code: number): void {
    this.keepString(code)
    if (code === 0x75) {
      this.hexLeft = 4
      this.state = S_HEX
    } else if (
      code === QUOTE ||
      code === BACKSLASH ||
      code === 0x2f ||
      code === 0x62 ||
      code === 0x66 ||
      code === 0x6e ||
      code === 0x72 ||
      code === 0x74
    ) {
      this.state = S_STRING
    } else this.fail(code)
  }

  private startValue(code: number): void {
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (this.objects.length >= MAX_JSON_DEPTH) {
        this.error = `nested deeper than ${MAX_JSON_DEPTH} levels at byte ${this.at}`
        return
      }
      if (this.capturing) {
        // `usage.prompt_tokens` is an object or an array: not a count.
        this.capturing = false
        this.found = { container: true }
      }
      const isObject = code === OPEN_OBJECT
      this.objects.push(isObject)
      if (isObject && this.objects.length === 2 && this.lastKey === 'usage' && this.objects[0]) {
        this.usageOpen = true
      }
      this.state = isObject ? S_KEY_OR_END : S_VALUE_OR_END
      return
    }
    this.keepValue(code)
    if (code === QUOTE) {
      this.stringIsKey = false
      this.state = S_STRING
    } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      this.numberState = code === 0x2d ? N_MINUS : code === 0x30 ? N_ZERO : N_INT
      this.state = S_NUMBER
    } else if (code === 0x74 || code === 0x66 || code === 0x6e) {
      this.literal = LITERALS[code === 0x74 ? 0 : code === 0x66 ? 1 : 2]!
      this.literalAt = 1
      this.state = S_LITERAL
    } else this.fail(code)
  }

  private afterValue(code: number): void {
    const depth = this.objects.length
    const inObject = this.objects[depth - 1]!
    if (code === 0x2c) this.state = inObject ? S_KEY : S_VALUE
    else if (code === (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) this.close(inObject, code)
    else this.fail(code)
  }

  private close(isObject: boolean, code: number): void {
    if (this.objects[this.objects.length - 1] !== isObject) {
      this.fail(code)
      return
    }
    if (this.usageOpen && this.objects.length === 2) this.usageOpen = false
    this.objects.pop()
    this.endValue()
  }

  private numberByte(code: number): void {
    const digit = code >= 0x30 && code <= 0x39
    const n = this.numberState
    let next = -1
    if (n === N_MINUS) next = digit ? (code === 0x30 ? N_ZERO : N_INT) : -2
    else if (n === N_DOT) next = digit ? N_FRAC : -2
    else if (n === N_E) next = code === 0x2b || code === 0x2d ? N_SIGN : digit ? N_EXP : -2
    else if (n === N_SIGN) next = digit ? N_EXP : -2
    else if (digit && n !== N_ZERO) next = n
    else if (code === 0x2e && (n === N_ZERO || n === N_INT)) next = N_DOT
    else if ((code === 0x65 || code === 0x45) && n !== N_EXP) next = N_E
    if (next >= 0) {
      this.numberState = next
      this.keepValue(code)
    } else if (next === -2) {
      this.fail(code)
    } else {
      // The byte after a number ends it, and is read as what follows a value.
      this.endNumber()
      if (this.error === undefined) this.byte(code)
    }
  }

  private endNumber(): void {
    const n = this.numberState
    if (n === N_MINUS || n === N_DOT || n === N_E || n === N_SIGN) {
      this.error = `a number ends early at byte ${this.at}`
      return
    }
    this.endValue()
  }

  private endString(): void {
    if (this.stringIsKey) {
      this.stringIsKey = false
      this.lastKey = this.keyLong ? '' : decodeKey(this.key)
      this.state = S_COLON
      return
    }
    this.keepValue(QUOTE)
    this.endValue()
  }

  /** After a member's colon: the value that follows may be the one looked for. */
  private beforeMemberValue(): void {
    this.state = S_VALUE
    const depth = this.objects.length
    // A later `usage` replaces an earlier one, as JSON.parse keeps the last.
    if (depth === 1 && this.lastKey === 'usage') this.found = undefined
    if (this.usageOpen && depth === 2 && this.lastKey === 'prompt_tokens') {
      this.capturing = true
      this.captured = []
      this.capturedLong = false
    }
  }

  private endValue(): void {
    if (this.capturing) {
      this.capturing = false
      this.found = this.capturedLong ? { long: true } : { raw: Buffer.from(this.captured).toString('utf8') }
    }
    this.state = this.objects.length === 0 ? S_DONE : S_AFTER_VALUE
  }

  /** A byte inside a string: of a key at the watched depths, or of the value looked for. */
  private keepString(code: number): void {
    if (!this.stringIsKey) {
      this.keepValue(code)
      return
    }
    if (this.objects.length > 2) return
    if (this.key.length < MAX_KEPT_BYTES) this.key.push(code)
    else this.keyLong = true
  }

  /** A byte of `usage.prompt_tokens`, while it is read. */
  private keepValue(code: number): void {
    if (!this.capturing) return
    if (this.captured.length < MAX_KEPT_BYTES) this.captured.push(code)
    else this.capturedLong = true
  }
}

/** A key's bytes as the string `JSON.parse` makes of it (escapes decoded). */
function decodeKey(bytes: readonly number[]): string {
  const text = Buffer.from(bytes).toString('utf8')
  return text.includes('\\') ? (JSON.parse(`"${text}"`) as string) : text
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09
}

function isHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66)
}
