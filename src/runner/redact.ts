import type { ResolvedEndpoint } from '../config/bench-config.ts'

/** What replaces a secret in any text servebench writes. */
export const REDACTED = '[redacted]'

// Shorter values are too likely to occur by chance ("1", "on") to be blanked everywhere.
const MIN_SECRET_CHARS = 4

/** The values that must never be written out: the API key, every `--header` value, a password in the base URL. */
export function secretsOf(
  endpoint: Pick<ResolvedEndpoint, 'apiKey' | 'headers'> & { baseUrl?: string },
): string[] {
  const values = [endpoint.apiKey ?? '', ...Object.values(endpoint.headers), ...urlPassword(endpoint.baseUrl)]
  // Longest first, so a secret that contains another is blanked whole.
  return [...new Set(values.map((v) => v.trim()).filter((v) => v.length >= MIN_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  )
}

function urlPassword(url: string | undefined): string[] {
  if (url === undefined) return []
  try {
    const { password } = new URL(url)
    return password === '' ? [] : [password, decodeURIComponent(password)]
  } catch {
    return []
  }
}

/** `text` with every occurrence of each secret replaced by {@link REDACTED}. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED)
  return out
}

/** A URL with its user and password (`http://user:pass@host`) replaced by {@link REDACTED}. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.username === '' && parsed.password === '') return url
    return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, `$1${REDACTED}@`)
  } catch {
    return url
  }
}

/**
 * An error thrown out of a run with the secrets blanked in its message (and its causes'), so the
 * CLI and the Vitest reporter can print it as is.
 */
export function redactError(error: unknown, secrets: readonly string[]): unknown {
  if (secrets.length === 0) return error
  let current: unknown = error
  for (let depth = 0; current instanceof Error && depth < 8; depth++) {
    const clean = redactSecrets(current.message, secrets)
    if (clean !== current.message) {
      current.message = clean
      if (current.stack) current.stack = redactSecrets(current.stack, secrets)
    }
    current = current.cause
  }
  return error
}
