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
  // Deviation: Python writes bare Infinity/NaN (invalid JSON); we write strings, as V-ref does for request_rate.
  if (!Number.isFinite(x)) return `"${pyFloatRepr(x)}"`
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
 * escaped, floats in `repr` form (`10.0`, `1e-05`). Non-finite numbers become `"inf"`, `"-inf"`,
 * `"nan"`.
 */
export function toPythonJson(value: unknown): string {
  return encode(value, false)
}
