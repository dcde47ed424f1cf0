/**
 * The escaping of both HTML pages (the report and the `--plot-timeline` page): text for element
 * content and attribute values, and JSON embedded in a `<script>` element. Pure.
 */

/** Text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

/**
 * JSON for a `<script type="application/json">` element, read back with `JSON.parse`: no
 * `</script>`, `<!--` or line separator can end or break the element. Only string contents hold
 * these characters, and their `\u` escapes parse to the same value.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029')
}
