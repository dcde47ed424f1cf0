import type { ResolvedEndpoint } from '../config/bench-config.ts'

/** What replaces a secret in any text servebench writes. */
export const REDACTED = '[redacted]'

// Shorter values are too likely to occur by chance ("1", "on") to be blanked everywhere.
const MIN_SECRET_CHARS = 4

/**
 * The values that must never be written out: the API key, every `--header` value and the bare
 * credential inside it (`Bearer sk-…` → also `sk-…`, and a `Basic` pair's password), a password in
 * the base URL, and the Hugging Face token of the environment (`HF_TOKEN`,
 * `HUGGING_FACE_HUB_TOKEN`). A server that echoes a key back ("Incorrect API key provided: sk-…")
 * then has it blanked too.
 */
export function secretsOf(
  endpoint: Pick<ResolvedEndpoint, 'apiKey' | 'headers'> & { baseUrl?: string },
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  const headerValues = Object.values(endpoint.headers)
  const values = [
    endpoint.apiKey ?? '',
    ...headerValues,
    ...headerValues.flatMap(credentialsIn),
    ...urlPassword(endpoint.baseUrl),
    env.HF_TOKEN ?? '',
    env.HUGGING_FACE_HUB_TOKEN ?? '',
  ]
  // Longest first, so a secret that contains another is blanked whole.
  return [...new Set(values.map((v) => v.trim()).filter((v) => v.length >= MIN_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  )
}

// An auth scheme before the credential: `Bearer x`, `Token x`, `Basic base64(user:pass)`, `ApiKey x`.
const SCHEME_VALUE = /^\s*([A-Za-z][A-Za-z0-9_-]*)\s+(\S+)\s*$/

/** The credential part of a header value, and a Basic pair's user:password and password. */
function credentialsIn(value: string): string[] {
  const match = SCHEME_VALUE.exec(value)
  if (!match) return []
  const [, scheme = '', credential = ''] = match
  const out = [credential]
  if (scheme.toLowerCase() === 'basic') {
    const decoded = Buffer.from(credential, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon > 0 && /^[\x20-\x7e]+$/.test(decoded)) out.push(decoded, decoded.slice(colon + 1))
  }
  return out
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

/**
 * Blanks the secrets in every string of a plain value (a result object, request records), in
 * place, and returns it. The one pass every run's output goes through before it is printed or
 * written: errors, generated texts, metadata.
 */
export function redactDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') return redactSecrets(node, secrets)
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item: unknown = node[i]
        if (typeof item === 'string' || (typeof item === 'object' && item !== null)) node[i] = visit(item)
      }
      return node
    }
    if (typeof node === 'object' && node !== null && !ArrayBuffer.isView(node)) {
      const record = node as Record<string, unknown>
      for (const key of Object.keys(record)) {
        const item = record[key]
        if (typeof item === 'string' || (typeof item === 'object' && item !== null)) {
          const clean = visit(item)
          if (clean !== item) record[key] = clean
        }
      }
    }
    return node
  }
  return visit(value) as T
}
