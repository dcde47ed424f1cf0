import { ConfigError, type ConfigIssue } from '../../errors.ts'

export interface RangeRatio {
  input: number
  output: number
}

const FLAG = '--random-range-ratio'

// Rust: the hint it gives users of its old default, whose meaning was [len·r, len].
const PYTHON_SEMANTICS_HINT =
  'Note: semantics now match Python vllm bench serve: lengths are drawn from [len·(1−r), len·(1+r)] ' +
  'and 0.0 means a fixed length; the old Rust default 1.0 ([len·r, len]) is no longer valid.'

/**
 * Parses `--random-range-ratio`: a float r (both input and output) or the JSON
 * `{"input": a, "output": b}`. Each ratio must be in [0, 1). Throws a `ConfigError` naming the flag.
 */
export function parseRangeRatio(value: string): RangeRatio {
  const text = value.trim()
  if (text.startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw invalid(
        `must be a number or a JSON object {"input": a, "output": b} (got ${JSON.stringify(value)})`,
      )
    }
    const record = parsed as Record<string, unknown>
    const missing = ['input', 'output'].filter((key) => typeof record[key] !== 'number')
    if (missing.length > 0) {
      throw invalid(
        `JSON form needs numeric "input" and "output" keys (missing ${missing.map((k) => `"${k}"`).join(', ')})`,
      )
    }
    return checkRangeRatio({ input: record.input as number, output: record.output as number })
  }
  const ratio = text === '' ? Number.NaN : Number(text)
  if (!Number.isFinite(ratio)) {
    throw invalid(
      `must be a number or a JSON object {"input": a, "output": b} (got ${JSON.stringify(value)})`,
    )
  }
  return checkRangeRatio({ input: ratio, output: ratio })
}

/** Checks both ratios are in [0, 1); returns the ratio unchanged. */
export function checkRangeRatio(ratio: RangeRatio): RangeRatio {
  const issues: ConfigIssue[] = []
  for (const key of ['input', 'output'] as const) {
    const r = ratio[key]
    if (!(r >= 0 && r < 1)) {
      issues.push({
        path: FLAG,
        message: `${key} ratio must be in [0, 1) (got ${r}).${r === 1 ? ` ${PYTHON_SEMANTICS_HINT}` : ''}`,
      })
    }
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return ratio
}

/** Input length bounds: [floor(len·(1−r)), ceil(len·(1+r))]. */
export function inputBounds(len: number, ratio: number): [low: number, high: number] {
  return [Math.floor(len * (1 - ratio)), Math.ceil(len * (1 + ratio))]
}

/** Output length bounds, both clamped to at least 1 so no request asks for 0 tokens. */
export function outputBounds(len: number, ratio: number): [low: number, high: number] {
  return [Math.max(1, Math.floor(len * (1 - ratio))), Math.max(1, Math.ceil(len * (1 + ratio)))]
}

function invalid(message: string): ConfigError {
  return new ConfigError([{ path: FLAG, message }])
}
