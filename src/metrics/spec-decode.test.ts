import { describe, expect, it } from 'vitest'
import { parsePrometheusText } from './prometheus.ts'
import { readSpecDecodeCounters, type SpecDecodeCounters, specDecodeDelta } from './spec-decode.ts'

const counters = (
  numDrafts: number,
  numDraftTokens: number,
  numAcceptedTokens: number,
  acceptedPerPosition: Record<string, number>,
): SpecDecodeCounters => ({ numDrafts, numDraftTokens, numAcceptedTokens, acceptedPerPosition })

// Vectors of the Rust port's spec-decode delta tests (metrics/calculator.rs).
describe('specDecodeDelta', () => {
  it('computes rate, length and per-position rates from the deltas', () => {
    const stats = specDecodeDelta(
      counters(100, 300, 200, { 0: 90, 1: 70, 2: 50 }),
      counters(200, 600, 440, { 0: 180, 1: 150, 2: 120 }),
    )
    expect(stats).toBeDefined()
    expect(stats!.numDrafts).toBe(100)
    expect(stats!.draftTokens).toBe(300)
    expect(stats!.acceptedTokens).toBe(240)
    expect(stats!.acceptanceRatePct).toBeCloseTo(80, 10)
    expect(stats!.acceptanceLength).toBeCloseTo(3.4, 10)
    expect(stats!.perPositionAcceptanceRates.map((r) => Number(r.toFixed(10)))).toEqual([0.9, 0.8, 0.7])
  })

  it('gives nothing without a draft-token delta', () => {
    expect(specDecodeDelta(counters(0, 100, 80, {}), counters(0, 100, 80, {}))).toBeUndefined()
  })

  it('reports length 0 and no positions when no draft was counted', () => {
    expect(specDecodeDelta(counters(0, 0, 0, {}), counters(0, 100, 80, {}))).toEqual({
      acceptanceRatePct: 80,
      acceptanceLength: 0,
      numDrafts: 0,
      draftTokens: 100,
      acceptedTokens: 80,
      perPositionAcceptanceRates: [],
    })
  })

  it('counts a position missing before as starting from 0', () => {
    const stats = specDecodeDelta(
      counters(50, 150, 100, { 0: 40 }),
      counters(150, 450, 320, { 0: 130, 1: 80 }),
    )
    expect(stats!.numDrafts).toBe(100)
    expect(stats!.perPositionAcceptanceRates).toEqual([0.9, 0.8])
  })

  it('gives nothing when a snapshot is missing', () => {
    expect(specDecodeDelta(undefined, counters(1, 1, 1, {}))).toBeUndefined()
  })
})

describe('readSpecDecodeCounters', () => {
  it('sums *_total samples over label sets and ignores *_created samples', () => {
    const text = [
      '# TYPE vllm:spec_decode_num_drafts counter',
      'vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 10',
      'vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 5',
      'vllm:spec_decode_num_drafts_created{engine="0",model_name="m"} 1.7e9',
      'vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 45',
      'vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 30',
      'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="0"} 12',
      'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",position="0"} 3',
      'vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",position="1"} 9',
      'vllm:spec_decode_num_accepted_tokens_per_pos_created{engine="0",position="1"} 1.7e9',
    ].join('\n')
    expect(readSpecDecodeCounters(parsePrometheusText(text).samples)).toEqual({
      numDrafts: 15,
      numDraftTokens: 45,
      numAcceptedTokens: 30,
      acceptedPerPosition: { 0: 15, 1: 9 },
    })
  })

  it('gives nothing when the server exports no spec-decode counter', () => {
    expect(readSpecDecodeCounters(parsePrometheusText('vllm:prompt_tokens_total 5').samples)).toBeUndefined()
  })
})
