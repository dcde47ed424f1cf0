/**
 * Incremental Server-Sent Events parser that works on bytes.
 *
 * Lines are cut at `\n` bytes (a trailing `\r` is dropped; a chunk with a CR-only line end is first
 * rewritten with LFs, since CR, LF and CRLF all end a line), so a multi-byte UTF-8 character can
 * never be split: a line is decoded only once it is complete. `data:` values (one optional space
 * stripped) are joined with `\n`; a blank line dispatches the event; `:` comments and other
 * fields (`event:`, `id:`, `retry:`) are ignored. After `[DONE]` the rest of the stream is ignored.
 *
 * Speculative flush (Rust: `StreamedResponseHandler` in backends/streaming.rs; Python does the
 * same with `json.loads`): when the pending event already holds one complete JSON object or array,
 * or `[DONE]`, but its blank line has not arrived, the event is emitted at once so the caller
 * stamps it with the arrival time of its JSON, not of the separator.
 *
 * Every step is linear in the bytes received: an event's data lines are kept as a list and joined
 * once, and the bracket scan that decides a speculative flush resumes where it stopped, so an
 * event of many `data:` lines without a blank line (which took 104 s for 16 MiB when each chunk
 * re-read the whole event) is read once and rejected at its cap.
 */

import { BracketScan } from './bracket-scan.ts'
import {
  DEFAULT_STREAM_LIMITS,
  eventTooLargeMessage,
  lineTooLargeMessage,
  StreamLimitError,
} from './stream-limits.ts'

/** The parser of one response stream. Not reusable across streams. */
export interface SseParser {
  /**
   * Feeds one body chunk and calls `onData` with the `data` payload of each event it completes, in
   * order. The per-chunk path: no array is made per chunk (one was ~190 bytes, the most the parser
   * allocated per event after the payload itself). If `onData` throws, the rest of the chunk is
   * not parsed; the stream is then over.
   */
  feed(chunk: Uint8Array, onData: (data: string) => void): void
  /** Ends the stream; calls `onData` with what was still pending (an event without its blank line). */
  finish(onData: (data: string) => void): void
  /**
   * No partial line or pending event is held, and `[DONE]` has not come: a chunk that is one whole
   * event would be parsed from a clean start, so a caller may read such a chunk itself.
   */
  readonly idle: boolean
  /** {@link feed}, returning the payloads instead. */
  push(chunk: Uint8Array): string[]
  /** {@link finish}, returning the payloads instead. */
  end(): string[]
}

export { isCompleteJson } from './bracket-scan.ts'

/** The payload a stream sends last; everything after it is ignored. */
export const SSE_DONE = '[DONE]'

const LF = 0x0a
const CR = 0x0d
const COLON = 0x3a
const SPACE = 0x20
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const INITIAL_CAPACITY_BYTES = 1024

/**
 * Creates a parser for one stream. A line, or an event's joined data, longer than
 * `maxEventBytes` throws a {@link StreamLimitError}: memory stays bounded whatever the server sends.
 */
export function createSseParser(maxEventBytes: number = DEFAULT_STREAM_LIMITS.maxEventBytes): SseParser {
  return new ByteSseParser(maxEventBytes)
}

class ByteSseParser implements SseParser {
  /** Bytes of the current incomplete line (only used when a line spans chunks). */
  private carry: Buffer = Buffer.allocUnsafe(0)
  private carryLength = 0
  /** The first data line of the pending event; null when it has no data line yet. */
  private data: string | null = null
  /** Its later data lines, joined with `\n` when the event is dispatched (null for one line). */
  private moreData: string[] | null = null
  /** Characters of the pending event's data, `\n` separators included. */
  private dataLength = 0
  /** The last character code of the pending data (the cheap test before a speculative flush). */
  private dataLastCode = 0
  /** Bracket scan of the pending data: its data lines already scanned, and the state after them. */
  private readonly scan = new BracketScan()
  private scannedLines = 0
  /** Bracket scan of the partial data line in `carry`: the state, and the carry offset it reached. */
  private readonly partialScan = new BracketScan()
  private partialScannedTo = -1
  /** The current partial line was already emitted speculatively: drop it up to its `\n`. */
  private discardLine = false
  private done = false
  private readonly maxEventBytes: number
  /** The previous chunk ended in a CR, which ended its line: a LF first in this one is dropped. */
  private pendingCr = false
  /** Where the current {@link feed} or {@link finish} sends its payloads. */
  private onData: (data: string) => void = ignore

  constructor(maxEventBytes: number) {
    this.maxEventBytes = maxEventBytes
  }

  get idle(): boolean {
    return this.carryLength === 0 && this.data === null && !this.discardLine && !this.pendingCr && !this.done
  }

  push(chunk: Uint8Array): string[] {
    const out: string[] = []
    this.feed(chunk, (data) => out.push(data))
    return out
  }

  end(): string[] {
    const out: string[] = []
    this.finish((data) => out.push(data))
    return out
  }

  feed(chunk: Uint8Array, onData: (data: string) => void): void {
    if (this.done || chunk.byteLength === 0) return
    this.onData = onData
    let bytes = asBuffer(chunk)
    if (this.pendingCr) {
      // The LF of a CRLF split across chunks: its CR already ended the line.
      this.pendingCr = false
      if (bytes[0] === LF) bytes = bytes.subarray(1)
    }
    if (hasLoneCr(bytes)) bytes = this.normaliseCr(bytes)
    if (bytes.length === 0) return
    let position = 0
    if (this.carryLength > 0) {
      const newline = bytes.indexOf(LF)
      if (newline === -1) {
        this.append(bytes, 0, bytes.length)
        this.speculate(this.carry, 0, this.carryLength)
        return
      }
      this.append(bytes, 0, newline)
      const length = this.carryLength
      this.clearCarry()
      this.line(this.carry, 0, length)
      position = newline + 1
    }
    while (!this.done) {
      const newline = bytes.indexOf(LF, position)
      if (newline === -1) break
      this.line(bytes, position, newline)
      position = newline + 1
    }
    if (this.done) return
    if (position < bytes.length) {
      this.append(bytes, position, bytes.length)
      this.speculate(this.carry, 0, this.carryLength)
    } else {
      this.speculate(bytes, 0, 0)
    }
  }

  finish(onData: (data: string) => void): void {
    if (this.done) return
    this.onData = onData
    if (this.carryLength > 0) {
      const length = this.carryLength
      this.clearCarry()
      this.line(this.carry, 0, length)
    }
    this.discardLine = false
    if (!this.done && this.data !== null) this.dispatch()
  }

  /** Each CR, alone or before a LF, as one LF (SSE: CR, LF and CRLF all end a line). */
  private normaliseCr(bytes: Buffer): Buffer {
    const out = Buffer.allocUnsafe(bytes.length)
    let n = 0
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!
      if (byte !== CR) {
        out[n++] = byte
      } else if (i + 1 < bytes.length) {
        if (bytes[i + 1] !== LF) out[n++] = LF
      } else {
        out[n++] = LF
        this.pendingCr = true
      }
    }
    return out.subarray(0, n)
  }

  private append(source: Buffer, start: number, end: number): void {
    const needed = this.carryLength + (end - start)
    if (needed > this.maxEventBytes) {
      this.clearCarry()
      this.carry = Buffer.allocUnsafe(0)
      throw new StreamLimitError(lineTooLargeMessage(this.maxEventBytes))
    }
    if (needed > this.carry.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.carry.length * 2, INITIAL_CAPACITY_BYTES))
      this.carry.copy(grown, 0, 0, this.carryLength)
      this.carry = grown
    }
    source.copy(this.carry, this.carryLength, start, end)
    this.carryLength = needed
  }

  /** The partial line is gone (complete, or dropped): so is its scan. */
  private clearCarry(): void {
    this.carryLength = 0
    this.partialScannedTo = -1
  }

  /** Handles one complete line `bytes[start, end)` (its `\n` excluded). */
  private line(bytes: Buffer, start: number, end: number): void {
    if (end > start && bytes[end - 1] === CR) end--
    if (this.discardLine) {
      this.discardLine = false
      return
    }
    if (end === start) {
      if (this.data !== null) this.dispatch()
      return
    }
    const valueStart = dataValueStart(bytes, start, end)
    if (valueStart === -1) return
    const value = bytes.toString('utf8', valueStart, end)
    const length = this.data === null ? value.length : this.dataLength + 1 + value.length
    if (length > this.maxEventBytes) {
      this.resetData()
      throw new StreamLimitError(eventTooLargeMessage(this.maxEventBytes))
    }
    if (this.data === null) this.data = value
    else if (this.moreData === null) this.moreData = [value]
    else this.moreData.push(value)
    this.dataLength = length
    if (value.length > 0) this.dataLastCode = value.charCodeAt(value.length - 1)
    else if (this.moreData !== null) this.dataLastCode = LF
  }

  private dispatch(): void {
    const data = this.joinedData()
    this.resetData()
    if (isDone(data)) this.done = true
    this.onData(data)
  }

  /** The pending event's data lines joined with `\n`. */
  private joinedData(): string {
    const first = this.data!
    return this.moreData === null ? first : `${first}\n${this.moreData.join('\n')}`
  }

  private resetData(): void {
    this.data = null
    this.moreData = null
    this.dataLength = 0
    this.dataLastCode = 0
    // Only a speculative check scans; most events never get one.
    if (this.scannedLines > 0) {
      this.scan.reset()
      this.scannedLines = 0
    }
  }

  /**
   * After a chunk: if the pending event (its complete data lines plus a partial `data:` line
   * `bytes[start, end)`, if any) is already one complete JSON value or `[DONE]`, emit it now.
   */
  private speculate(bytes: Buffer, start: number, end: number): void {
    if (this.discardLine) return
    let partialValueStart = -1
    if (end > start) {
      partialValueStart = dataValueStart(bytes, start, end)
      // A partial line that is not (yet) a data line might still become one: wait for it.
      if (partialValueStart === -1) return
    } else if (this.data === null) {
      return
    }
    // A line ending in `\r` may still get its `\n`: judge it without the `\r`, as `line` will.
    if (partialValueStart !== -1 && bytes[end - 1] === CR) end--
    // Cheap rejection first: a complete value (and `[DONE]`) ends with `}` or `]`.
    const last = partialValueStart === -1 ? this.dataLastCode : bytes[end - 1]
    if (last !== CLOSE_BRACE && last !== CLOSE_BRACKET) return
    const partialBytes = partialValueStart === -1 ? 0 : end - partialValueStart
    // `[DONE]` is short: only a short candidate is made into a string to compare.
    const short = (this.data === null ? 0 : this.dataLength + 1) + partialBytes < 2 * SSE_DONE.length + 32
    const doneCandidate = short && isDone(this.candidate(bytes, partialValueStart, end))
    if (!doneCandidate && !this.completeJson(bytes, partialValueStart, end)) return
    const candidate = this.candidate(bytes, partialValueStart, end)
    if (partialValueStart !== -1) {
      this.discardLine = true
      this.clearCarry()
    }
    this.resetData()
    if (isDone(candidate)) this.done = true
    this.onData(candidate)
  }

  /** The pending data plus the partial value `bytes[valueStart, end)` (none when -1), as one string. */
  private candidate(bytes: Buffer, valueStart: number, end: number): string {
    if (valueStart === -1) return this.joinedData()
    const partial = bytes.toString('utf8', valueStart, end)
    return this.data === null ? partial : `${this.joinedData()}\n${partial}`
  }

  /**
   * {@link isCompleteJson} of {@link candidate}, resumed: data lines already scanned are not read
   * again, nor is the part of the partial line scanned after an earlier chunk.
   */
  private completeJson(bytes: Buffer, valueStart: number, end: number): boolean {
    const lines = this.data === null ? 0 : 1 + (this.moreData?.length ?? 0)
    for (; this.scannedLines < lines; this.scannedLines++) {
      if (this.scannedLines > 0) this.scan.code(LF)
      const line = this.scannedLines === 0 ? this.data! : this.moreData![this.scannedLines - 1]!
      for (let i = 0; i < line.length; i++) this.scan.code(line.charCodeAt(i))
    }
    if (valueStart === -1) return this.scan.complete
    if (this.partialScannedTo < valueStart) {
      this.partialScan.copy(this.scan)
      if (this.data !== null) this.partialScan.code(LF)
      this.partialScannedTo = valueStart
    }
    for (; this.partialScannedTo < end; this.partialScannedTo++)
      this.partialScan.code(bytes[this.partialScannedTo]!)
    return this.partialScan.complete
  }
}

/**
 * True when a CR in `bytes` is not followed by a LF in the same chunk (a CR-only line end, or a CR
 * last in the chunk). A CRLF stream skips the copy: `line` drops the CR before each LF.
 */
function hasLoneCr(bytes: Buffer): boolean {
  for (let i = bytes.indexOf(CR); i !== -1; i = bytes.indexOf(CR, i + 2)) {
    if (bytes[i + 1] !== LF) return true
  }
  return false
}

function ignore(): void {}

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
}

/** Where the value of a `data` field starts in the line `bytes[start, end)`, or -1 for other lines. */
function dataValueStart(bytes: Buffer, start: number, end: number): number {
  // `data` (d a t a), then `:` with an optional space, or nothing (an empty value).
  if (
    end - start < 4 ||
    bytes[start] !== 0x64 ||
    bytes[start + 1] !== 0x61 ||
    bytes[start + 2] !== 0x74 ||
    bytes[start + 3] !== 0x61
  ) {
    return -1
  }
  if (end - start === 4) return end
  if (bytes[start + 4] !== COLON) return -1
  return bytes[start + 5] === SPACE && start + 5 < end ? start + 6 : start + 5
}

function isDone(data: string): boolean {
  return data === SSE_DONE || (data.length < 32 && data.trim() === SSE_DONE)
}
