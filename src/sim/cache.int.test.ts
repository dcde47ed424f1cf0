import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import { parseSimArgs, simUsage } from '../cli/sim-args.ts'
import { ConfigError } from '../errors.ts'
import { resolveSimOptions } from './options.ts'
import { SIM_PROFILES } from './profiles.ts'
import { startSimulator } from './server.ts'

const fakeTokenizer = () => ({ encode: () => [], decode: () => '' })

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as ConfigError).issues
  }
  throw new Error('expected a ConfigError')
}

async function metrics(url: string): Promise<Map<string, number>> {
  const text = await (await request(`${url}/metrics`)).body.text()
  const values = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue
    const name = line.slice(0, line.search(/[{ ]/))
    if (!values.has(name)) values.set(name, Number(line.slice(line.lastIndexOf(' ') + 1)))
  }
  return values
}

async function complete(url: string, body: Record<string, unknown>): Promise<string> {
  const res = await request(`${url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json = (await res.body.json()) as { choices: { text: string }[] }
  return json.choices[0]!.text
}

describe('KV-cache and profile options', () => {
  it('applies a profile and lets explicit options override each of its values', () => {
    const profile = SIM_PROFILES['llama-3.1-70b-h100-tp4']
    const plain = resolveSimOptions({ profileName: 'llama-3.1-70b-h100-tp4' }, fakeTokenizer)
    expect(plain).toMatchObject({
      decodeBaseMs: profile.decodeBaseMs,
      decodeMsPerSeq: profile.decodeMsPerSeq,
      prefillMsPerToken: profile.prefillMsPerToken,
      numGpuBlocks: profile.numGpuBlocks,
      blockSize: 16,
      profileName: 'llama-3.1-70b-h100-tp4',
    })
    const overridden = resolveSimOptions(
      parseSimArgs([
        '--profile-name',
        'llama-3.1-70b-h100-tp4',
        '--decode-base-ms',
        '3',
        '--num-gpu-blocks',
        '5000',
      ]),
      fakeTokenizer,
    )
    expect(overridden).toMatchObject({
      decodeBaseMs: 3,
      decodeMsPerSeq: profile.decodeMsPerSeq,
      numGpuBlocks: 5000,
    })
    // Another block size keeps the profile's token capacity.
    expect(
      resolveSimOptions({ profileName: 'qwen3-0.6b-l4', blockSize: 32 }, fakeTokenizer).numGpuBlocks,
    ).toBe(SIM_PROFILES['qwen3-0.6b-l4'].numGpuBlocks / 2)
  })

  it('defaults to prefix caching on, as vLLM v1, and reads both switches', () => {
    expect(resolveSimOptions({}, fakeTokenizer)).toMatchObject({
      enablePrefixCaching: true,
      numGpuBlocks: 65_536,
      blockSize: 16,
      profileName: undefined,
    })
    expect(parseSimArgs(['--no-enable-prefix-caching'])).toEqual({ enablePrefixCaching: false })
    expect(parseSimArgs(['--enable-prefix-caching', '--block-size=32'])).toEqual({
      enablePrefixCaching: true,
      blockSize: 32,
    })
    expect(simUsage()).toMatch(/--no-enable-prefix-caching +turn prefix caching off\n/)
  })

  it('names a bad profile, a cache smaller than one context window and a value after a negation', () => {
    expect(issuesOf(() => resolveSimOptions({ profileName: 'gpt-9' as never }, fakeTokenizer))).toEqual([
      {
        path: 'profileName',
        message: "must be one of llama-3.1-8b-h100, llama-3.1-70b-h100-tp4, qwen3-0.6b-l4 (got 'gpt-9')",
      },
    ])
    expect(issuesOf(() => resolveSimOptions({ numGpuBlocks: 10, blockSize: 16 }, fakeTokenizer))).toEqual([
      {
        path: 'numGpuBlocks',
        message:
          'holds 160 tokens (numGpuBlocks × blockSize), fewer than maxModelLen (32768); raise numGpuBlocks or lower maxModelLen',
      },
    ])
    expect(issuesOf(() => parseSimArgs(['--no-enable-prefix-caching=false', '--block-size', '0']))).toEqual([
      { path: '--no-enable-prefix-caching', message: 'takes no value (got "false")' },
      { path: '--block-size', message: "must be an integer between 1 and 1024 (got '0')" },
    ])
  })
})

describe('/metrics of the KV cache', () => {
  it('exposes vLLM names that move: usage while running, prefix hits, preemptions, token counters', async () => {
    const sim = await startSimulator({
      decodeBaseMs: 1,
      decodeMsPerSeq: 0,
      prefillMsPerToken: 0,
      numGpuBlocks: 24,
      blockSize: 16,
      maxModelLen: 384,
    })
    try {
      const before = await metrics(sim.url)
      for (const name of [
        'vllm:num_requests_running',
        'vllm:num_requests_waiting',
        'vllm:kv_cache_usage_perc',
        'vllm:prefix_cache_queries_total',
        'vllm:prefix_cache_hits_total',
        'vllm:num_preemptions_total',
        'vllm:prompt_tokens_total',
        'vllm:generation_tokens_total',
        'vllm:time_to_first_token_seconds_count',
        'vllm:inter_token_latency_seconds_count',
        'vllm:e2e_request_latency_seconds_count',
      ]) {
        expect(before.get(name), name).toBe(0)
      }
      const prompt = Array.from({ length: 100 }, (_, i) => 1000 + i)
      await complete(sim.url, { prompt, max_tokens: 4 })
      await complete(sim.url, { prompt, max_tokens: 4 })
      // Eight 100-token prompts decoding 120 tokens need 8 × 14 blocks of 24: preemption.
      const pending = Array.from({ length: 8 }, (_, i) =>
        complete(sim.url, {
          prompt: prompt.map((t) => t + 1000 * (i + 1)),
          max_tokens: 120,
          ignore_eos: true,
        }),
      )
      // Poll rather than sleep a fixed time: on a loaded machine the requests reach the engine later.
      let during = await metrics(sim.url)
      for (let i = 0; i < 200 && !(during.get('vllm:num_requests_waiting')! > 0); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10))
        during = await metrics(sim.url)
      }
      expect(during.get('vllm:kv_cache_usage_perc')).toBeGreaterThan(0.5)
      expect(during.get('vllm:kv_cache_usage_perc')).toBeLessThanOrEqual(1)
      expect(during.get('vllm:num_requests_waiting')).toBeGreaterThan(0)
      await Promise.all(pending)
      const after = await metrics(sim.url)
      // Preempted requests are looked up again when they restart (prompt and output so far).
      expect(after.get('vllm:prefix_cache_queries_total')).toBeGreaterThan(1000)
      expect(after.get('vllm:prefix_cache_hits_total')).toBeGreaterThanOrEqual(96)
      expect(after.get('vllm:num_preemptions_total')).toBeGreaterThan(0)
      expect(after.get('vllm:kv_cache_usage_perc')).toBe(0)
      expect(after.get('vllm:prompt_tokens_total')).toBe(1000)
      expect(after.get('vllm:generation_tokens_total')).toBe(8 + 8 * 120)
      expect(after.get('vllm:time_to_first_token_seconds_count')).toBe(10)
    } finally {
      await sim.close()
    }
  })
})

describe('reproducibility', () => {
  it('gives the same text for the same seed across servers, and other text for another seed', async () => {
    const texts: string[] = []
    for (const seed of [7, 7, 8]) {
      const sim = await startSimulator({ seed, decodeBaseMs: 0, decodeMsPerSeq: 0, prefillMsPerToken: 0 })
      try {
        texts.push(await complete(sim.url, { prompt: 'the same prompt', max_tokens: 12, ignore_eos: true }))
      } finally {
        await sim.close()
      }
    }
    expect(texts[0]).toBe(texts[1])
    expect(texts[0]).not.toBe(texts[2])
  })
})
