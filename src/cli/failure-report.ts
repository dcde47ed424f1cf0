import type { BenchConfig } from '../config/bench-config.ts'
import type { RequestRecord } from '../config/records.ts'
import { EXIT_CODES } from '../errors.ts'
import { checkFailureRatio, describeFailureRatio } from '../runner/failure-ratio.ts'
import type { RetryStats } from '../runner/retry.ts'

/**
 * The `servebench:` lines about a run's failures, for stderr: the retries (with `--max-retries`),
 * a warning above `--max-failure-ratio`, and the verdict of `--fail-on-error-ratio`.
 * `failed` is true when that verdict failed: the CLI then exits 1.
 */
export function reportFailures(
  config: BenchConfig,
  records: readonly RequestRecord[],
  retries: RetryStats,
): { lines: string[]; failed: boolean } {
  const lines: string[] = []
  const { maxRetries } = config.request
  if (maxRetries > 0) {
    lines.push(
      `servebench: ${retries.retries} ${retries.retries === 1 ? 'retry' : 'retries'} for ${retries.retriedRequests} ${retries.retriedRequests === 1 ? 'request' : 'requests'} (${retries.recovered} recovered; --max-retries ${maxRetries})`,
    )
  }
  const failed = records.filter((r) => !r.success).length
  const counts = { completed: records.length - failed, failed }
  const warning = checkFailureRatio(counts, config.maxFailureRatio)
  if (warning.exceeded) {
    lines.push(`servebench: WARNING: ${describeFailureRatio(warning, '--max-failure-ratio')}`)
  }
  let verdictFailed = false
  if (config.failOnErrorRatio !== undefined) {
    const verdict = checkFailureRatio(counts, config.failOnErrorRatio)
    if (verdict.exceeded) {
      verdictFailed = true
      lines.push(`servebench: FAILED: ${describeFailureRatio(verdict, '--fail-on-error-ratio')}`)
    }
  }
  return { lines, failed: verdictFailed }
}

/**
 * The `servebench:` line when a saturated client fails the command (`--client-check fail`, the
 * default: exit 4, ahead of a failed ratio verdict, since a verdict measured by a starved client
 * says nothing about the server); undefined when it does not.
 */
export function clientSaturationFailure(config: BenchConfig, saturated: boolean): string | undefined {
  if (!saturated || config.clientCheck !== 'fail') return undefined
  return `servebench: FAILED: the client was saturated, so these latencies measure the client, not the server (exit ${EXIT_CODES.clientSaturated}; --client-check warn keeps exit 0)`
}
