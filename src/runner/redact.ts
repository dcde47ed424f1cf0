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

/**
 * `text` with every occurrence of each secret replaced by {@link REDACTED}: as written, and as a
 * server may echo it encoded. Any character of it written as a JSON escape (`sk\u002d…`) or
 * percent-encoded (`sk%2D…`, in any mix), and its base64 (standard or URL-safe, at any byte
 * offset inside a longer base64 text, so the characters that carry only its bytes).
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED)
    const encoded = encodingsOf(secret)
    // The escaped forms need a `\` or a `%`; most texts have neither, and skip the pattern.
    if ((out.includes('\\') || out.includes('%')) && encoded.escaped.test(out)) {
      out = out.replace(encoded.escaped, REDACTED)
    }
    for (const core of encoded.base64) if (out.includes(core)) out = out.split(core).join(REDACTED)
  }
  return out
}

/** The encoded forms of one secret: the escape pattern, and its base64 cores. */
interface SecretEncodings {
  escaped: RegExp
  base64: string[]
}

// Base64 shorter than this may occur by chance in an unrelated text.
const MIN_BASE64_CORE_CHARS = 8
const encodings = new Map<string, SecretEncodings>()

function encodingsOf(secret: string): SecretEncodings {
  let found = encodings.get(secret)
  if (found === undefined) {
    found = { escaped: escapedPattern(secret), base64: base64Cores(secret) }
    encodings.set(secret, found)
  }
  // A global pattern keeps its position between calls: start each search at 0.
  found.escaped.lastIndex = 0
  return found
}

/** One pattern that matches the secret with any of its characters JSON-escaped or percent-encoded. */
function escapedPattern(secret: string): RegExp {
  const parts: string[] = []
  for (const char of secret) {
    const forms = [char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')]
    for (const unit of utf16Units(char)) forms.push(`\\\\u${hexPattern(unit, 4)}`)
    if (char === '/') forms.push('\\\\/')
    forms.push(Array.from(Buffer.from(char, 'utf8'), (byte) => `%${hexPattern(byte, 2)}`).join(''))
    parts.push(`(?:${forms.join('|')})`)
  }
  return new RegExp(parts.join(''), 'g')
}

function utf16Units(char: string): number[] {
  return Array.from({ length: char.length }, (_, i) => char.charCodeAt(i))
}

/** `value` as `digits` hex digits, each letter matched in either case. */
function hexPattern(value: number, digits: number): string {
  return [...value.toString(16).padStart(digits, '0')]
    .map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d))
    .join('')
}

/**
 * The base64 characters that carry only the secret's bytes, for each of the three offsets it can
 * start at inside a longer base64 text, in the standard and URL-safe alphabets.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  const cores = new Set<string>()
  for (let offset = 0; offset < 3; offset++) {
    const text = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '')
    const total = offset + bytes.length
    // The first characters mix the offset's bytes in; the last may mix the bytes after it.
    const skip = [0, 2, 3][offset]!
    const keep = Math.floor(total / 3) * 4 + [0, 1, 2][total % 3]!
    const core = text.slice(skip, keep)
    if (core.length >= MIN_BASE64_CORE_CHARS) {
      cores.add(core)
      cores.add(core.replaceAll('+', '-').replaceAll('/', '_'))
    }
  }
  return [...cores]
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
