import { streamLimitsFrom } from '../backends/stream-limits.ts'
import type { BenchConfig } from '../config/bench-config.ts'
import { datasetFileLimitsFrom } from '../datasets/dataset-file.ts'
import { ConfigError, type ConfigIssue } from '../errors.ts'

/**
 * Largest `--random-input-len` (and `--random-prefix-len`) accepted: ten times the longest context
 * window served today. Beyond it a prompt's text no longer fits in a V8 string, and the process
 * would die in dataset generation with a fatal error instead of a message.
 */
export const MAX_RANDOM_INPUT_LEN = 10_000_000

// Control characters but tab, CR, LF and NUL (those have their own message).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const HEADER_CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/**
 * What the flag resolvers cannot see but a run must refuse before anything is sent (exit 2): header
 * values that would break the HTTP request line (CR, LF or NUL, which undici rejects on every
 * request as if the server were down), random prompts too long to build, and a bad
 * `SERVEBENCH_MAX_*` stream limit.
 */
export function checkRunInputs(config: BenchConfig): void {
  const issues: ConfigIssue[] = []
  for (const [name, value] of Object.entries(config.endpoint.headers)) {
    if (/[\r\n\0]/.test(value)) {
      // The value is not quoted: it may be a secret.
      issues.push({ path: `--header ${name}`, message: 'value must not contain CR, LF or NUL characters' })
    } else if (HEADER_CONTROL.test(value)) {
      // RFC 9110 field values: visible characters, spaces and tabs; undici sends the rest as it is.
      issues.push({ path: `--header ${name}`, message: 'value must not contain control characters' })
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || name === '__proto__') {
      issues.push({
        path: '--header',
        message: `name ${JSON.stringify(name)} is not a valid HTTP header name`,
      })
    }
  }
  const { dataset } = config
  if (dataset.kind === 'random') {
    for (const [path, value] of [
      ['--random-input-len', dataset.inputLen],
      ['--random-prefix-len', dataset.prefixLen],
    ] as const) {
      if (value > MAX_RANDOM_INPUT_LEN) {
        issues.push({ path, message: `must be at most ${MAX_RANDOM_INPUT_LEN} tokens (got ${value})` })
      }
    }
  }
  try {
    streamLimitsFrom()
  } catch (error) {
    issues.push(...(error as ConfigError).issues)
  }
  issues.push(...datasetFileLimitsFrom().issues)
  if (issues.length > 0) throw new ConfigError(issues)
}
