import { ConfigError } from '../../errors.ts'

/**
 * Splits a command line into words as Python's `shlex.split` (POSIX mode, no comments) does:
 * whitespace separates words, single quotes keep everything, double quotes keep everything but
 * `\"`, `\\`, `` \` `` and `\$`, and a backslash outside quotes keeps the next character.
 * `flag` names the option in the error for an unclosed quote or a trailing backslash.
 */
export function splitShellWords(text: string, flag: string): string[] {
  const words: string[] = []
  let word = ''
  let inWord = false
  let quote: "'" | '"' | undefined
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (quote === "'") {
      if (char === "'") quote = undefined
      else word += char
    } else if (quote === '"') {
      if (char === '"') quote = undefined
      else if (char === '\\' && i + 1 < text.length && '\\"$`\n'.includes(text[i + 1]!)) word += text[++i]
      else word += char
    } else if (char === "'" || char === '"') {
      quote = char
      inWord = true
    } else if (char === '\\') {
      if (i + 1 >= text.length) throw new ConfigError([{ path: flag, message: 'ends with a lone backslash' }])
      word += text[++i]
      inWord = true
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word)
      word = ''
      inWord = false
    } else {
      word += char
      inWord = true
    }
  }
  if (quote) throw new ConfigError([{ path: flag, message: `has no closing quotation (${quote})` }])
  if (inWord) words.push(word)
  return words
}
