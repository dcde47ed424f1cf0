import { pyFloatRepr } from '../../metrics/py-number.ts'

/**
 * Keys whose numbers Python holds as floats, so they are written `10.0` rather than `10`. Numbers
 * under other keys are written as integers when they are whole.
 */
const FLOAT_KEYS = new Set([
  'request_rate',
  'burstiness',
  'duration',
  'request_throughput',
  'request_goodput',
  'output_throughput',
  'total_token_throughput',
  'input_throughput',
  'input_sequence_throughput',
  'ttfts',
  'itls',
  'latencies',
  'start_times',
  'queue_times',
  'intended_delays',
  'max_output_tokens_per_s',
  'rtfx',
  'spec_decode_acceptance_rate',
  'spec_decode_acceptance_length',
  'spec_decode_per_position_acceptance_rates',
  'probe_median_e2el_ms',
  'probe_p99_e2el_ms',
  'probe_max_e2el_ms',
  'diffusion_committed_throughput',
  'diffusion_steps_per_canvas',
  'diffusion_committed_per_step',
])

const STAT_KEY = /^(mean|median|std|p\d+(\.\d+)?(e[+-]\d+)?)_[a-z0-9_]+_ms$/

/** Whether Python writes the numbers under `key` as floats. */
export function isFloatKey(key: string): boolean {
  return FLOAT_KEYS.has(key) || STAT_KEY.test(key)
}

function escapeChar(ch: string): string {
  switch (ch) {
    case '"':
      return '\\"'
    case '\\':
      return '\\\\'
    case '\n':
      return '\\n'
    case '\r':
      return '\\r'
    case '\t':
      return '\\t'
    case '\b':
      return '\\b'
    case '\f':
      return '\\f'
    default:
      return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`
  }
}

/** Python `json.dumps(s)` with `ensure_ascii=True`: everything outside printable ASCII escaped. */
export function pyJsonString(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters to escape.
  return `"${s.replace(/["\\\u0000-\u001f\u007f-\uffff]/g, escapeChar)}"`
}

function number(x: number, asFloat: boolean): string {
  // As Python's json.dump: bare tokens, which Python's json.load and pandas read back as floats
  // (and parsePythonJson below). `request_rate` is the one place Python writes the string "inf".
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity'
  if (!asFloat && Number.isInteger(x)) return String(x)
  return pyFloatRepr(x)
}

function encode(value: unknown, asFloat: boolean): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'number') return number(value, asFloat)
  if (typeof value === 'string') return pyJsonString(value)
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'bigint') return value.toString()
  if (Array.isArray(value)) return `[${value.map((v) => encode(v, asFloat)).join(', ')}]`
  if (typeof value === 'object') {
    const parts: string[] = []
    for (const [key, v] of Object.entries(value)) {
      if (v === undefined || typeof v === 'function') continue
      parts.push(`${pyJsonString(key)}: ${encode(v, isFloatKey(key))}`)
    }
    return `{${parts.join(', ')}}`
  }
  throw new TypeError(`cannot write a ${typeof value} to a result file`)
}

/**
 * The text Python's `json.dump(obj, f)` writes: one line, `", "` and `": "` separators, non-ASCII
 * escaped, floats in `repr` form (`10.0`, `1e-05`), non-finite numbers as the bare `Infinity`,
 * `-Infinity` and `NaN` that Python writes and reads.
 */
export function toPythonJson(value: unknown): string {
  return encode(value, false)
}

/**
 * `JSON.parse` that also reads what Python's `json.dump` writes for non-finite floats, the bare
 * tokens `Infinity`, `-Infinity` and `NaN`, as those numbers. Every reader of result files uses it.
 */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    const marked = markNonFiniteTokens(text)
    if (marked === text) throw error
    return JSON.parse(marked, (_key, value: unknown) =>
      typeof value === 'string' && value.startsWith(MARK) ? NON_FINITE[value] : value,
    )
  }
}

// A string no JSON text can hold unescaped (U+0000 must be escaped inside a string).
const MARK = '\u0000py:'
const NON_FINITE: Record<string, number> = {
  [`${MARK}Infinity`]: Number.POSITIVE_INFINITY,
  [`${MARK}-Infinity`]: Number.NEGATIVE_INFINITY,
  [`${MARK}NaN`]: Number.NaN,
}

/** The bare tokens outside strings, as marked strings; one pass, strings skipped whole. */
function markNonFiniteTokens(text: string): string {
  const parts: string[] = []
  let from = 0
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (ch === 0x22 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++
      continue
    }
    const token =
      ch === 0x4e /* N */ ? 'NaN' : ch === 0x49 /* I */ ? 'Infinity' : ch === 0x2d ? '-Infinity' : ''
    if (token === '' || !text.startsWith(token, i)) continue
    parts.push(text.slice(from, i), JSON.stringify(`${MARK}${token}`))
    i += token.length - 1
    from = i + 1
  }
  return from === 0 ? text : parts.join('') + text.slice(from)
}
