/**
 * The repeat-event fast path of a generation stream. vLLM's completions and chat chunks differ
 * from one another only in the text: they repeat the same `id`, `created`, `model` and `null`
 * fields around one string. Once a stream has shown such an event, the next ones are read by
 * comparing their two ends with it and taking the string between, where a `JSON.parse` per event
 * (11% of the main thread's CPU in a profile of 64-token streams) built and dropped the whole
 * object. Anything that does not match exactly (the last event with its `finish_reason`, usage,
 * an escaped character) is parsed as before.
 */
import type { ChoiceTextReader } from './stream-request.ts'

/** What replaces the text when a template is checked: no quote, backslash or control character. */
const PROBE = 'servebench-template-probe'
const QUOTE = 0x22
const BACKSLASH = 0x5c
const FIRST_PRINTABLE = 0x20

/**
 * One stream's text event with its text cut out: `prefix` ends with the text's opening quote,
 * `suffix` starts with its closing one.
 */
export class TextEventTemplate {
  private readonly prefix: string
  private readonly suffix: string
  /** The template as a whole chunk, as vLLM writes each event: `data: ` + prefix, as UTF-8. */
  private readonly chunkPrefix: Buffer
  /** … and suffix + the blank line. */
  private readonly chunkSuffix: Buffer

  private constructor(prefix: string, suffix: string) {
    this.prefix = prefix
    this.suffix = suffix
    this.chunkPrefix = Buffer.from(`data: ${prefix}`)
    this.chunkSuffix = Buffer.from(`${suffix}\n\n`)
  }

  /**
   * The template of `data`, an event whose `choices[0]` has the non-empty text `text` and which
   * carries nothing else that counts (no usage, error or metrics; the caller checks). Undefined
   * when the text cannot be found in `data` as JSON.stringify writes it, or when putting another
   * string in its place does not change what `readText` reads: then the place is not the text.
   */
  static learn(data: string, text: string, readText: ChoiceTextReader): TextEventTemplate | undefined {
    const quoted = JSON.stringify(text)
    const at = data.indexOf(quoted)
    if (at === -1) return undefined
    const prefix = data.slice(0, at + 1)
    const suffix = data.slice(at + quoted.length - 1)
    let probe: unknown
    try {
      probe = JSON.parse(prefix + PROBE + suffix)
    } catch {
      return undefined
    }
    const choices = (probe as { choices?: unknown } | null)?.choices
    if (!Array.isArray(choices) || choices.length === 0 || readText(choices[0]) !== PROBE) return undefined
    return new TextEventTemplate(prefix, suffix)
  }

  /**
   * The text of `data` when it is this template with a plain JSON string (no escape, no control
   * character) in the text's place: `JSON.parse` would then read the same object as the template's
   * with this text, so the caller treats it as a text event. Undefined for anything else.
   */
  textOf(data: string): string | undefined {
    const { prefix, suffix } = this
    const end = data.length - suffix.length
    // The suffix first: the last text event differs there (its finish_reason). Comparing slices
    // is about twice as fast as startsWith in V8.
    if (end < prefix.length || data.slice(end) !== suffix || data.slice(0, prefix.length) !== prefix) {
      return undefined
    }
    for (let i = prefix.length; i < end; i++) {
      const code = data.charCodeAt(i)
      if (code === QUOTE || code === BACKSLASH || code < FIRST_PRINTABLE) return undefined
    }
    return data.slice(prefix.length, end)
  }

  /**
   * The text of the chunk `bytes[start, end)` when it is exactly one such event, `data: ` and the
   * template with a plain JSON string in the text's place and a blank line after it, read from
   * the bytes: no string is made of the event (the SSE parser decodes ~220 bytes per event), only
   * of its text. It is what the parser and {@link textOf} would give: the text's UTF-8 is cut at
   * its two quotes, and no line end can hide inside it (control bytes are refused). Undefined for
   * anything else.
   */
  textOfChunk(bytes: Buffer, start = 0, end = bytes.length): string | undefined {
    const { chunkPrefix, chunkSuffix } = this
    const textStart = start + chunkPrefix.length
    const textEnd = end - chunkSuffix.length
    if (
      textEnd < textStart ||
      bytes.compare(chunkSuffix, 0, chunkSuffix.length, textEnd, end) !== 0 ||
      bytes.compare(chunkPrefix, 0, chunkPrefix.length, start, textStart) !== 0
    ) {
      return undefined
    }
    for (let i = textStart; i < textEnd; i++) {
      const byte = bytes[i]!
      if (byte === QUOTE || byte === BACKSLASH || byte < FIRST_PRINTABLE) return undefined
    }
    return bytes.toString('utf8', textStart, textEnd)
  }
}
