/**
 * Text from a server (an error body, a model id, a warning that quotes one) as the console may
 * show it: the control characters a terminal acts on (ESC starting a colour or a title sequence,
 * CR moving back over a line, BEL, backspace), DEL, the C1 controls and the bidirectional
 * overrides are written as `\xHH` / `\uHHHH` escapes. Line feeds and tabs are kept. Files keep the
 * text as it came; only what is printed goes through here.
 */

// C0 but tab and line feed, DEL, C1, and the bidi embeddings, overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** `text` with every character a terminal would act on escaped. */
export function terminalSafe(text: string): string {
  UNSAFE.lastIndex = 0
  if (!UNSAFE.test(text)) return text
  return text.replace(UNSAFE, (char) => {
    const code = char.charCodeAt(0)
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`
  })
}
