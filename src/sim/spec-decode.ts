import { createRng, type Rng } from '../rng.ts'
import type { MetricFamily } from './metric-families.ts'

/**
 * Simulated speculative decoding: each decode step proposes `numTokens` draft tokens and accepts
 * a Binomial(`numTokens`, `acceptanceRate`) count of them, as a prefix (positions 0..a-1), so the
 * step emits `a + 1` tokens (the accepted drafts and the bonus token). The expected share of draft
 * tokens accepted is exactly `acceptanceRate`, which is what vLLM's acceptance rate measures.
 * The counters are exported as vLLM's `vllm:spec_decode_*_total` families.
 */
export class SpecDecodeSim {
  numDrafts = 0
  numDraftTokens = 0
  numAcceptedTokens = 0
  readonly acceptedPerPosition: number[]
  readonly numTokens: number
  readonly acceptanceRate: number
  private readonly rng: Rng

  constructor(numTokens: number, acceptanceRate: number, seed: number) {
    this.numTokens = numTokens
    this.acceptanceRate = acceptanceRate
    this.acceptedPerPosition = new Array<number>(numTokens).fill(0)
    this.rng = createRng(seed ^ 0x5bec)
  }

  /** One step's draft: how many tokens it emits (accepted drafts + 1). */
  draw(): number {
    let accepted = 0
    for (let i = 0; i < this.numTokens; i++) if (this.rng.next() < this.acceptanceRate) accepted++
    this.numDrafts++
    this.numDraftTokens += this.numTokens
    this.numAcceptedTokens += accepted
    for (let i = 0; i < accepted; i++) this.acceptedPerPosition[i]!++
    return accepted + 1
  }

  /** One family per counter, labelled like vLLM's (`labels`: the engine's, `engine="0",model_name="m"`). */
  families(labels: string): MetricFamily[] {
    const counter = (name: string, help: string, samples: string[]): MetricFamily => ({
      name,
      type: 'counter',
      help,
      samples,
    })
    return [
      counter('vllm:spec_decode_num_drafts', 'Number of spec decoding drafts.', [
        `vllm:spec_decode_num_drafts_total{${labels}} ${this.numDrafts}`,
      ]),
      counter('vllm:spec_decode_num_draft_tokens', 'Number of draft tokens.', [
        `vllm:spec_decode_num_draft_tokens_total{${labels}} ${this.numDraftTokens}`,
      ]),
      counter('vllm:spec_decode_num_accepted_tokens', 'Number of accepted tokens.', [
        `vllm:spec_decode_num_accepted_tokens_total{${labels}} ${this.numAcceptedTokens}`,
      ]),
      counter(
        'vllm:spec_decode_num_accepted_tokens_per_pos',
        'Accepted tokens per draft position.',
        this.acceptedPerPosition.map(
          (count, position) =>
            `vllm:spec_decode_num_accepted_tokens_per_pos_total{${labels},position="${position}"} ${count}`,
        ),
      ),
    ]
  }
}
