/**
 * Speculative-decoding figures from two `/metrics` snapshots, taken before and after the run.
 * Python: fetch_spec_decode_metrics (vllm/benchmarks/serve.py); Rust: spec_decode deltas (metrics/).
 */
import type { PrometheusSample } from './prometheus.ts'

/** vLLM's counters, summed over every label set (engines, models), per-position counts by `position`. */
export interface SpecDecodeCounters {
  numDrafts: number
  numDraftTokens: number
  numAcceptedTokens: number
  /** Accepted tokens by draft position (`"0"`, `"1"`, …). */
  acceptedPerPosition: Record<string, number>
}

/** What the run's deltas give. Rates per position are fractions (0–1); the acceptance rate is a percentage. */
export interface SpecDecodeStats {
  acceptanceRatePct: number
  acceptanceLength: number
  numDrafts: number
  draftTokens: number
  acceptedTokens: number
  perPositionAcceptanceRates: number[]
}

const DRAFTS = 'vllm:spec_decode_num_drafts_total'
const DRAFT_TOKENS = 'vllm:spec_decode_num_draft_tokens_total'
const ACCEPTED = 'vllm:spec_decode_num_accepted_tokens_total'
const PER_POSITION = 'vllm:spec_decode_num_accepted_tokens_per_pos_total'

/**
 * Reads the counters from parsed samples; undefined when the server exports none. Only the `*_total`
 * samples count: the `*_created` timestamps of the same families would otherwise be summed in.
 */
export function readSpecDecodeCounters(samples: readonly PrometheusSample[]): SpecDecodeCounters | undefined {
  let found = false
  const counters: SpecDecodeCounters = {
    numDrafts: 0,
    numDraftTokens: 0,
    numAcceptedTokens: 0,
    acceptedPerPosition: {},
  }
  for (const sample of samples) {
    if (!Number.isFinite(sample.value)) continue
    switch (sample.name) {
      case DRAFTS:
        counters.numDrafts += sample.value
        break
      case DRAFT_TOKENS:
        counters.numDraftTokens += sample.value
        break
      case ACCEPTED:
        counters.numAcceptedTokens += sample.value
        break
      case PER_POSITION: {
        const position = sample.labels.position ?? '0'
        counters.acceptedPerPosition[position] = (counters.acceptedPerPosition[position] ?? 0) + sample.value
        break
      }
      default:
        continue
    }
    found = true
  }
  return found ? counters : undefined
}

/**
 * The run's figures from the counter deltas (negative deltas, after a server restart, count 0).
 * Undefined when a snapshot is missing or no draft token was proposed during the run.
 */
export function specDecodeDelta(
  before: SpecDecodeCounters | undefined,
  after: SpecDecodeCounters | undefined,
): SpecDecodeStats | undefined {
  if (!before || !after) return undefined
  const delta = (a: number, b: number): number => Math.max(0, Math.trunc(b) - Math.trunc(a))
  const draftTokens = delta(before.numDraftTokens, after.numDraftTokens)
  if (draftTokens === 0) return undefined
  const numDrafts = delta(before.numDrafts, after.numDrafts)
  const acceptedTokens = delta(before.numAcceptedTokens, after.numAcceptedTokens)
  const positions = [
    ...new Set([...Object.keys(before.acceptedPerPosition), ...Object.keys(after.acceptedPerPosition)]),
  ].sort((a, b) => Number(a) - Number(b))
  return {
    acceptanceRatePct: (acceptedTokens / draftTokens) * 100,
    acceptanceLength: numDrafts > 0 ? 1 + acceptedTokens / numDrafts : 0,
    numDrafts,
    draftTokens,
    acceptedTokens,
    perPositionAcceptanceRates:
      numDrafts > 0
        ? positions.map(
            (p) => delta(before.acceptedPerPosition[p] ?? 0, after.acceptedPerPosition[p] ?? 0) / numDrafts,
          )
        : [],
  }
}
