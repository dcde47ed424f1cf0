import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ScriptServer, sse, startScriptServer } from '../../test/backends/script-server.ts'
import type { BenchConfig } from '../config/bench-config.ts'
import { defaultBenchConfig } from '../config/defaults.ts'
import { formatResultTable } from '../report/console/console.ts'
import { resultForFile } from '../report/result/result-json.ts'
import { validateResultFile } from '../report/result/schema/index.ts'
import { startSimulator } from '../sim/server.ts'
import { runBenchmark } from './run-benchmark.ts'

// A completions server that reports what vLLM can report beside tokens: cached prompt tokens
// (with --enable-prompt-tokens-details), the usage chunk's `metrics` and `x-vllm-*` routing
// headers. The request id's last digit picks what each answer carries; `mode` switches them off.
let server: ScriptServer
let mode: 'details' | 'plain' | 'fail' = 'details'

beforeAll(async () => {
  server = await startScriptServer((request, response) => {
    if (request.url !== '/v1/completions') {
      response.writeHead(404).end()
      return
    }
    if (mode === 'fail') {
      response.writeHead(500).end()
      return
    }
    const index = Number(
      /(\d+)"?$/.exec(request.rawHeaders.find(([n]) => n === 'x-request-id')?.[1] ?? '')?.[1],
    )
    const headers: Record<string, string> = { 'content-type': 'text/event-stream' }
    if (mode === 'details' && index !== 1) headers['x-vllm-backend-id'] = `replica-${index}`
    response.writeHead(200, headers)
    const usage: Record<string, unknown> = { prompt_tokens: 10, completion_tokens: 1 }
    const chunk: Record<string, unknown> = { choices: [], usage }
    if (mode === 'details') {
      usage.prompt_tokens_details = { cached_tokens: index * 2 }
      if (index === 0) chunk.metrics = { queue_time_ms: 0, time_to_first_token_ms: 1250 }
      if (index === 2) chunk.metrics = { queue_time_ms: null, time_to_first_token_ms: 300 }
      if (index === 3) chunk.metrics = 'invalid'
    }
    response.end(`${sse({ choices: [{ text: 'hi' }] })}${sse(chunk)}data: [DONE]\n\n`)
  })
})
afterAll(() => server.close())

function config(): BenchConfig {
  const c = defaultBenchConfig()
  c.endpoint = { ...c.endpoint, baseUrl: server.baseUrl, model: 'm' }
  c.tokenizer.id = 'cl100k_base'
  c.dataset.inputLen = 8
  c.dataset.outputLen = 1
  c.numPrompts = 4
  c.load.maxConcurrency = 1
  c.request.requestIdPrefix = 'bench-'
  c.output.reportCachedTokens = true
  return c
}

describe('what the server reports per request', () => {
  it('sums cached tokens, keeps server metrics and x-vllm headers aligned, detailed only', async () => {
    mode = 'details'
    const lines: string[] = []
    const outcome = await runBenchmark(config(), { log: (line) => lines.push(line) })
    if (outcome.kind !== 'generation') throw new Error(`expected a generation result, got ${outcome.kind}`)
    const { result } = outcome
    expect(result.total_cached_tokens).toBe(0 + 2 + 4 + 6)
    const keys = Object.keys(result)
    expect(keys[keys.indexOf('total_output_tokens') + 1]).toBe('total_cached_tokens')
    expect(keys.slice(keys.indexOf('errors') + 1, keys.indexOf('errors') + 4)).toEqual([
      'server_queue_times',
      'server_ttfts',
      'response_metadata',
    ])
    expect(result.server_queue_times).toEqual([0, null, null, null])
    expect(result.server_ttfts).toEqual([1.25, null, 0.3, null])
    expect(result.response_metadata).toEqual([
      { 'x-vllm-backend-id': 'replica-0' },
      {},
      { 'x-vllm-backend-id': 'replica-2' },
      { 'x-vllm-backend-id': 'replica-3' },
    ])
    expect(lines.some((line) => line.includes('enable-prompt-tokens-details'))).toBe(false)
    const detailed = JSON.parse(JSON.stringify(resultForFile(result, true)))
    expect(validateResultFile(detailed)).toEqual({ valid: true })
    const summary = resultForFile(result, false)
    expect(validateResultFile(JSON.parse(JSON.stringify(summary)))).toEqual({ valid: true })
    expect(Object.keys(summary)).not.toContain('server_ttfts')
    expect(Object.keys(summary)).not.toContain('response_metadata')
    expect(summary.total_cached_tokens).toBe(12)
    const table = formatResultTable(result, {
      percentileMetrics: ['ttft'],
      metricPercentiles: [99],
      hasTokenizer: true,
      goodputSet: false,
    })
    expect(table).toContain(`\n${'Total generated tokens:'.padEnd(40)} 4         \nTotal cached tokens:`)
    expect(table).toContain(`${'Total cached tokens:'.padEnd(40)} ${'12'.padEnd(10)}\n`)
  })

  it('leaves the keys out and warns when the server reports no cached tokens; no warning when all failed', async () => {
    mode = 'plain'
    const lines: string[] = []
    const { result } = await runBenchmark(config(), { log: (line) => lines.push(line) })
    expect(result).not.toHaveProperty('total_cached_tokens')
    expect(result).not.toHaveProperty('server_ttfts')
    expect(result).not.toHaveProperty('response_metadata')
    expect(lines.filter((line) => line.includes('--enable-prompt-tokens-details'))).toHaveLength(1)
    mode = 'fail'
    const failed: string[] = []
    await runBenchmark(config(), { log: (line) => failed.push(line) })
    expect(failed.some((line) => line.includes('enable-prompt-tokens-details'))).toBe(false)
  })

  it('without --report-cached-tokens writes no total, but still the detailed server keys', async () => {
    mode = 'details'
    const c = config()
    delete c.output.reportCachedTokens
    const { result } = await runBenchmark(c)
    expect(result).not.toHaveProperty('total_cached_tokens')
    expect(result.server_ttfts).toEqual([1.25, null, 0.3, null])
  })

  it("reports the simulator's prefix-cache hits with --enable-prompt-tokens-details", async () => {
    const sim = await startSimulator({ enablePromptTokensDetails: true, decodeBaseMs: 1 })
    try {
      const c = config()
      c.endpoint = { ...c.endpoint, baseUrl: sim.url }
      c.dataset = { ...defaultBenchConfig().dataset, prefixLen: 64, inputLen: 16, outputLen: 1 }
      const lines: string[] = []
      const { result, records } = await runBenchmark(c, { log: (line) => lines.push(line) })
      // One request at a time: the first fills the cache, the three others hit the shared prefix
      // (whole 16-token blocks of it).
      expect(records[0]!.cachedTokens).toBe(0)
      for (const record of records.slice(1)) {
        expect(record.cachedTokens! % 16).toBe(0)
        expect(record.cachedTokens).toBeGreaterThanOrEqual(48)
        expect(record.cachedTokens).toBeLessThanOrEqual(64)
      }
      expect(result.total_cached_tokens).toBe(records.reduce((sum, r) => sum + r.cachedTokens!, 0))
      expect(lines.some((line) => line.includes('enable-prompt-tokens-details'))).toBe(false)
    } finally {
      await sim.close()
    }
  })
})
