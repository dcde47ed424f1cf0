import type { ConfigIssue } from '../errors.ts'
import type { BenchConfig, MultiTurnConfig, SweepConfig } from './bench-config.ts'
import { parsePercentiles } from './flag-parsers.ts'
import type { Reader } from './resolve.ts'

/** Rust's default `--profile-duration`, seconds. */
export const DEFAULT_PROFILE_DURATION_S = 5

/** Rust's default `--steady-state-threshold`. */
export const DEFAULT_STEADY_STATE_THRESHOLD = 0.95

const MULTI_TURN_FLAGS = [
  '--multi-turn-num-turns',
  '--multi-turn-min-turns',
  '--multi-turn-max-turns',
  '--multi-turn-concurrency',
  '--multi-turn-delay-ms',
  '--multi-turn-prefix-global-ratio',
  '--multi-turn-prefix-conversation-ratio',
  '--multi-turn-continue-on-failure',
  '--per-turn-input-len',
] as const

/**
 * The flags of the run modes and extra metrics: steady state, probe, profile, sweeps,
 * `--num-runs` and `--multi-turn*`. Fills `config` and reports every bad value to `issues`.
 * Rust: cli.rs → config.rs; Python: `--probe-request-rate`, `--profile`.
 */
export function resolveRunModeFlags(read: Reader, config: BenchConfig, issues: ConfigIssue[]): void {
  // Steady state (Rust): on unless --no-steady-state.
  const threshold = read.number('--steady-state-threshold')
  if (threshold !== undefined && !(threshold > 0 && threshold <= 1)) {
    issues.push({ path: '--steady-state-threshold', message: `must be in (0, 1] (got ${threshold})` })
  }
  const minWindowS = read.number('--steady-state-min-window')
  if (minWindowS !== undefined && minWindowS < 0) {
    issues.push({ path: '--steady-state-min-window', message: `must be >= 0 seconds (got ${minWindowS})` })
  }
  if (!read.bool('--no-steady-state')) {
    config.steadyState = {
      threshold: threshold ?? DEFAULT_STEADY_STATE_THRESHOLD,
      ...(minWindowS !== undefined ? { minWindowS } : {}),
    }
  }

  const probe = read.number('--probe-request-rate')
  if (probe !== undefined && probe < 0) {
    issues.push({
      path: '--probe-request-rate',
      message: `must be >= 0 requests per second; 0 is off (got ${probe})`,
    })
  } else if (probe !== undefined && probe > 0) config.probeRequestRatePerS = probe
  if (read.bool('--profile')) config.profile = true
  resolveProfileThreshold(read, config, issues)
  if (read.bool('--reset-prefix-cache')) config.resetPrefixCache = true
  const summary = read.parsed('--sweep-summary-percentiles', parsePercentiles)
  if (summary) {
    // Rust: deduplicated, and every one is also computed for each run.
    config.sweepSummaryPercentiles = [...new Set(summary)]
    config.metricPercentiles = [...new Set([...config.metricPercentiles, ...summary])]
  }

  const sweep = resolveSweep(read, issues)
  if (sweep) config.sweep = sweep
  const numRuns = read.int('--num-runs', 1)
  if (numRuns !== undefined && numRuns > 1) {
    if (sweep)
      issues.push({ path: '--num-runs', message: 'cannot be combined with a sweep (run the sweep once)' })
    config.numRuns = numRuns
  }

  const multiTurn = resolveMultiTurn(read, config, issues)
  if (multiTurn) {
    config.multiTurn = multiTurn
    // Rust forces ignore_eos only outside multi-turn; turns bound their output with min_tokens instead.
    config.request.ignoreEos = read.bool('--ignore-eos')
    if (sweep?.parameter === 'request_rate') {
      issues.push({
        path: '--sweep-request-rate',
        message: 'cannot be used with --multi-turn; sweep --sweep-max-concurrency instead',
      })
    }
  }
}

/** `--profile-batch-threshold N` and `--profile-duration S` (Rust `cli.rs`). */
function resolveProfileThreshold(read: Reader, config: BenchConfig, issues: ConfigIssue[]): void {
  const runningRequests = read.int('--profile-batch-threshold', 1)
  const durationS = read.positive('--profile-duration')
  if (runningRequests === undefined) {
    if (durationS !== undefined && durationS !== DEFAULT_PROFILE_DURATION_S)
      issues.push({ path: '--profile-duration', message: 'needs --profile-batch-threshold' })
    return
  }
  if (!config.profile) {
    issues.push({ path: '--profile-batch-threshold', message: 'needs --profile' })
    return
  }
  config.profileThreshold = { runningRequests, durationS: durationS ?? DEFAULT_PROFILE_DURATION_S }
}

function resolveSweep(read: Reader, issues: ConfigIssue[]): SweepConfig | undefined {
  const concurrency = read.parsed('--sweep-max-concurrency', (raw: string) =>
    splitList(raw).map((part) => {
      if (!/^\d+$/.test(part) || Number(part) < 1) {
        throw new Error(`must be comma-separated integers >= 1 (got "${part}")`)
      }
      return Number(part)
    }),
  )
  const rates = read.parsed('--sweep-request-rate', (raw: string) =>
    splitList(raw).map((part) => {
      const value = /^\+?inf(inity)?$/i.test(part) ? Number.POSITIVE_INFINITY : Number(part)
      if (part === '' || Number.isNaN(value) || value <= 0) {
        throw new Error(`must be comma-separated rates > 0 or inf (got "${part}")`)
      }
      return value
    }),
  )
  const factor = read.int('--sweep-num-prompts-factor', 1)
  if (concurrency && rates) {
    issues.push({ path: '--sweep-max-concurrency', message: 'cannot be combined with --sweep-request-rate' })
  }
  if (factor !== undefined && !concurrency) {
    issues.push({ path: '--sweep-num-prompts-factor', message: 'needs --sweep-max-concurrency' })
  }
  if (concurrency) {
    return {
      parameter: 'max_concurrency',
      values: concurrency,
      ...(factor !== undefined ? { numPromptsFactor: factor } : {}),
    }
  }
  if (rates) return { parameter: 'request_rate', values: rates }
  return undefined
}

function resolveMultiTurn(
  read: Reader,
  config: BenchConfig,
  issues: ConfigIssue[],
): MultiTurnConfig | undefined {
  if (!read.bool('--multi-turn')) {
    for (const name of MULTI_TURN_FLAGS) {
      if (read.string(name) !== undefined || read.bool(name))
        issues.push({ path: name, message: 'needs --multi-turn' })
    }
    return undefined
  }
  if (config.endpoint.backend !== 'openai-chat') {
    issues.push({
      path: '--multi-turn',
      message: `needs --backend openai-chat (got ${config.endpoint.backend}): turns carry the chat history`,
    })
  }
  const kind = config.dataset.kind
  const synthetic = kind === 'random'
  if (!synthetic && kind !== 'sharegpt' && kind !== 'hf') {
    issues.push({
      path: '--multi-turn',
      message: `supports --dataset-name random (synthetic conversations), sharegpt or hf (got ${kind})`,
    })
  }
  const numTurns = read.int('--multi-turn-num-turns', 1) ?? 3
  const minTurns = read.int('--multi-turn-min-turns', 0) ?? 0
  const maxTurns = read.int('--multi-turn-max-turns', 0) ?? 0
  const min = minTurns === 0 ? numTurns : minTurns
  const max = maxTurns === 0 ? numTurns : maxTurns
  // ShareGPT and hf: --multi-turn-max-turns caps the turns read (0 = all); a conversation has 2 or more.
  if (!synthetic && maxTurns === 1) {
    issues.push({
      path: '--multi-turn-max-turns',
      message: `must be 0 (no cap) or at least 2 for ShareGPT and hf conversations (got 1)`,
    })
  }
  if (synthetic && min > max) {
    issues.push({
      path: '--multi-turn-min-turns',
      message: `must be <= the maximum number of turns (got min ${min} > max ${max})`,
    })
  }
  const ratio = (name: string): number => {
    const value = read.number(name)
    if (value === undefined) return 0
    if (value < 0 || value > 1) issues.push({ path: name, message: `must be in [0, 1] (got ${value})` })
    return value
  }
  const prefixGlobalRatio = ratio('--multi-turn-prefix-global-ratio')
  const prefixConversationRatio = ratio('--multi-turn-prefix-conversation-ratio')
  if (!synthetic && prefixGlobalRatio + prefixConversationRatio > 0) {
    issues.push({
      path:
        prefixGlobalRatio > 0 ? '--multi-turn-prefix-global-ratio' : '--multi-turn-prefix-conversation-ratio',
      message: `needs --dataset-name random; ${kind} conversations carry their own text (got --dataset-name ${kind})`,
    })
  }
  if (prefixGlobalRatio + prefixConversationRatio >= 1) {
    issues.push({
      path: '--multi-turn-prefix-global-ratio',
      message: `plus --multi-turn-prefix-conversation-ratio must be < 1 (got ${prefixGlobalRatio + prefixConversationRatio})`,
    })
  }
  const concurrency = read.int('--multi-turn-concurrency', 1)
  return {
    numTurns,
    minTurns,
    maxTurns,
    perTurnInputLen: read.int('--per-turn-input-len', 0) ?? 0,
    ...(concurrency !== undefined ? { concurrency } : {}),
    delayMs: read.int('--multi-turn-delay-ms', 0) ?? 0,
    prefixGlobalRatio,
    prefixConversationRatio,
    continueOnFailure: read.bool('--multi-turn-continue-on-failure'),
  }
}

function splitList(raw: string): string[] {
  return raw.split(',').map((part) => part.trim())
}
