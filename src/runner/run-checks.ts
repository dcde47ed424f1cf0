import { streamLimitsFrom } from '../backends/stream-limits.ts'
import type { BenchConfig } from '../config/bench-config.ts'
import { datasetFileLimitsFrom } from '../datasets/dataset-file.ts'
import { moduleOf } from '../datasets/registry.ts'
import { ConfigError, type ConfigIssue } from '../errors.ts'

// Control characters but tab, CR, LF and NUL (those have their own message).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
const HEADER_CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/

/**
 * What the flag resolvers cannot see but a run must refuse before anything is sent (exit 2): header
 * values that would break the HTTP request line (CR, LF or NUL, which undici rejects on every
 * request as if the server were down), what the dataset's module refuses before a run (random
 * prompts too long to build: `runIssues`), and a bad `SERVEBENCH_MAX_*` stream limit.
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
  issues.push(...(moduleOf(config.dataset).runIssues?.(config.dataset) ?? []))
  try {
    streamLimitsFrom()
  } catch (error) {
    issues.push(...(error as ConfigError).issues)
  }
  issues.push(...datasetFileLimitsFrom().issues)
  if (issues.length > 0) throw new ConfigError(issues)
}
