/** `text` as a literal inside a regular expression: every metacharacter escaped (Node 24's `RegExp.escape`). */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$*+?.()|[\]{}]/g, '\\$&')
}
