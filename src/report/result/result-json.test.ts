import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { RequestRecord } from '../../config/records.ts'
import { calculateMetrics, type MetricsOptions } from '../../metrics/calculate.ts'
import { toPythonJson } from './py-json.ts'
import { buildResult, formatDate, type ResultSetup, resultFilename, resultForFile } from './result-json.ts'
import { DETAILED_KEYS } from './result-types.ts'

const read = (name: string): string =>
  readFileSync(new URL(`../../../fixtures/results/${name}`, import.meta.url), 'utf8')
const fixture = JSON.parse(read('records.json')) as {
  setup: ResultSetup
  options: MetricsOptions
  records: RequestRecord[]
}
const pythonDetailed = read('python-detailed.json')
const pythonSummary = read('python-summary.json')

function fixtureResult() {
  return buildResult(fixture.setup, calculateMetrics(fixture.records, fixture.options), fixture.records)
}

describe('buildResult', () => {
  it('puts the keys in the order of the Python result file', () => {
    expect(Object.keys(fixtureResult())).toEqual(Object.keys(JSON.parse(pythonDetailed)))
  })

  it('serialises to the exact text Python json.dump wrote for the same records', () => {
    expect(toPythonJson(fixtureResult())).toBe(pythonDetailed)
  })

  it('writes "inf" for an infinite rate, null label and concurrency, and ramp-up keys after the traffic keys', () => {
    const result = buildResult(
      {
        ...fixture.setup,
        metadata: [],
        requestRate: Number.POSITIVE_INFINITY,
        maxConcurrency: undefined,
        rampUp: { strategy: 'linear', startRps: 1, endRps: 10 },
      },
      calculateMetrics(fixture.records, fixture.options),
      fixture.records,
    )
    expect(result.request_rate).toBe('inf')
    expect(result.label).toBeNull()
    expect(result.max_concurrency).toBeNull()
    expect(Object.keys(result).slice(7, 15)).toEqual([
      'num_warmups',
      'request_rate',
      'burstiness',
      'max_concurrency',
      'ramp_up_strategy',
      'ramp_up_start_rps',
      'ramp_up_end_rps',
      'duration',
    ])
  })

  it('keeps a metadata key in place when a later key repeats it, with the later value (Python dict merge)', () => {
    const result = buildResult(
      {
        ...fixture.setup,
        metadata: [
          ['completed', 'x'],
          ['tp', '1'],
          ['tp', '2'],
        ],
      },
      calculateMetrics(fixture.records, fixture.options),
      fixture.records,
    )
    const keys = Object.keys(result)
    expect(keys.indexOf('completed')).toBe(keys.indexOf('num_warmups') + 1)
    expect(result.completed).toBe(3)
    expect(result.tp).toBe('2')
  })

  it('writes failures as 0 output tokens with their error text, 1:1 with dispatch order', () => {
    const result = fixtureResult()
    expect(result.output_lens).toEqual([4, 0, 1, 3])
    expect(result.errors[1]).toBe(
      'Never received a valid chunk to calculate TTFT.This response will be marked as failed!',
    )
    expect(result.input_lens).toEqual([32, 32, 30, 28])
  })

  it('inserts extra keys after rtfx and before the statistics', () => {
    const result = buildResult(
      fixture.setup,
      calculateMetrics(fixture.records, fixture.options),
      fixture.records,
      [['spec_decode_acceptance_rate', 50]],
    )
    const keys = Object.keys(result)
    expect(keys[keys.indexOf('rtfx') + 1]).toBe('spec_decode_acceptance_rate')
    expect(keys[keys.indexOf('rtfx') + 2]).toBe('mean_ttft_ms')
  })
})

describe('resultForFile', () => {
  it('drops every per-request array, latencies and queue_times included, unless detailed', () => {
    const summary = resultForFile(fixtureResult(), false)
    for (const key of DETAILED_KEYS) expect(summary).not.toHaveProperty(key)
    expect(toPythonJson(summary)).toBe(pythonSummary)
  })

  it('keeps everything when detailed, without changing the result it was given', () => {
    const result = fixtureResult()
    expect(toPythonJson(resultForFile(result, true))).toBe(pythonDetailed)
    resultForFile(result, false)
    expect(result).toHaveProperty('latencies')
  })
})

describe('formatDate', () => {
  it('formats local time as YYYYMMDD-HHMMSS', () => {
    expect(formatDate(new Date(2026, 0, 1, 1, 2, 3))).toBe('20260101-010203')
    expect(formatDate(new Date(2026, 11, 31, 23, 59, 59))).toBe('20261231-235959')
  })
})

// Python: main_async (vllm/benchmarks/serve.py) and tests/benchmarks/test_serve_result_filename.py.
describe('resultFilename', () => {
  const result = (overrides: Record<string, unknown>) =>
    ({
      ...fixtureResult(),
      backend: 'openai',
      label: null,
      model_id: 'meta-llama/Llama-3.2-1B-Instruct',
      date: '20260101-010203',
      request_rate: 'inf',
      max_concurrency: null,
      ...overrides,
    }) as ReturnType<typeof fixtureResult>

  it('matches the Python test example for rate inf', () => {
    expect(resultFilename(result({}), {})).toBe('openai-infqps-Llama-3.2-1B-Instruct-20260101-010203.json')
  })

  it('writes a finite rate as a Python float and adds the concurrency', () => {
    expect(resultFilename(result({ request_rate: 10 }), {})).toBe(
      'openai-10.0qps-Llama-3.2-1B-Instruct-20260101-010203.json',
    )
    expect(resultFilename(result({ request_rate: 2.5 }), { maxConcurrency: 8 })).toBe(
      'openai-2.5qps-concurrency8-Llama-3.2-1B-Instruct-20260101-010203.json',
    )
  })

  it('uses the label when given', () => {
    expect(resultFilename(result({ label: 'nightly' }), { label: 'nightly', maxConcurrency: 8 })).toBe(
      'nightly-infqps-concurrency8-Llama-3.2-1B-Instruct-20260101-010203.json',
    )
  })

  it('names a ramp-up run by its strategy and integer RPS', () => {
    const ramp = result({ ramp_up_strategy: 'linear', ramp_up_start_rps: 1, ramp_up_end_rps: 10 })
    expect(resultFilename(ramp, { maxConcurrency: 4 })).toBe(
      'openai-ramp-up-linear-1qps-10qps-concurrency4-Llama-3.2-1B-Instruct-20260101-010203.json',
    )
  })

  it('keeps a model id without an organisation as it is', () => {
    expect(resultFilename(result({ model_id: 'gpt2' }), {})).toBe('openai-infqps-gpt2-20260101-010203.json')
  })
})
