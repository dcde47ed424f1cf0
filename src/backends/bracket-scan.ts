/**
 * The bracket scan behind the SSE parser's speculative flush (sse.ts): is a pending event already
 * one complete JSON object or array? A syntax check only; the caller's `JSON.parse` decides.
 */

const LF = 0x0a
const CR = 0x0d
const SPACE = 0x20
const TAB = 0x09
const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/**
 * True when `text` (trimmed) is one complete JSON object or array: brackets balance outside
 * strings and close exactly at the end.
 */
export function isCompleteJson(text: string): boolean {
  const scan = new BracketScan()
  for (let i = 0; i < text.length; i++) scan.code(text.charCodeAt(i))
  return scan.complete
}

/**
 * The bracket scan of {@link isCompleteJson}, one character code at a time, so a caller can stop
 * and resume it. UTF-8 bytes and UTF-16 code units scan alike: the codes it looks at are ASCII.
 */
export class BracketScan {
  /** 0 before the value, 1 inside it, 2 closed (only spaces may follow), 3 not one value. */
  private state = 0
  private depth = 0
  private inString = false
  private escaped = false

  get complete(): boolean {
    return this.state === 2
  }

  reset(): void {
    this.state = 0
    this.depth = 0
    this.inString = false
    this.escaped = false
  }

  copy(other: BracketScan): void {
    this.state = other.state
    this.depth = other.depth
    this.inString = other.inString
    this.escaped = other.escaped
  }

  code(code: number): void {
    const state = this.state
    if (state === 3) return
    if (state === 0) {
      if (isSpace(code)) return
      if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        this.state = 1
        this.depth = 1
      } else {
        this.state = 3
      }
      return
    }
    if (state === 2) {
      if (!isSpace(code)) this.state = 3
      return
    }
    if (this.inString) {
      if (this.escaped) this.escaped = false
      else if (code === BACKSLASH) this.escaped = true
      else if (code === QUOTE) this.inString = false
    } else if (code === QUOTE) {
      this.inString = true
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      this.depth++
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      if (--this.depth === 0) this.state = 2
    }
  }
}

function isSpace(code: number): boolean {
  return code === SPACE || code === LF || code === CR || code === TAB
}
