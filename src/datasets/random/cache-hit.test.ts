import { describe, expect, it } from 'vitest'
import { argvIssues, resolveArgv } from '../../../test/config-doors.ts'
import { randomConfig } from '../../../test/random-configs.ts'
import { benchConfigFromDsl } from '../../options/from-dsl.ts'
import { loadTokenizer } from '../../tokenizer/index.ts'
import { datasets } from '../../vitest/runtime/builders.ts'
import { generateRequests } from '../index.ts'
import type { RandomDatasetConfig } from './random.ts'

const BIMODAL = ['--random-cache-hit-fraction', '0.8', '--random-cache-ratio', '0.95', '--prompt-token-ids']

describe('--random-cache-hit-fraction and --random-cache-ratio', () => {
  it('resolve into the random config, from the flags and from the DSL alike', () => {
    expect(resolveArgv(BIMODAL).dataset).toMatchObject({
      kind: 'random',
      cacheHit: { fraction: 0.8, ratio: 0.95 },
    })
    const dsl = benchConfigFromDsl(
      { dataset: datasets.random({ cacheHitFraction: 0.8, cacheRatio: 0.95, promptTokenIds: true }) },
      { name: 'warm cache', defaultBaseUrl: 'http://127.0.0.1:4321', simulator: true },
    )
    expect(dsl.dataset).toEqual(resolveArgv(BIMODAL).dataset)
    // Off by default, with no key: configs and their fingerprints stay as they were.
    expect(Object.keys(resolveArgv([]).dataset)).not.toContain('cacheHit')
  })

  it('report each flag without the other, a share outside [0, 1], text prompts and a prefix length', () => {
    expect(argvIssues(['--random-cache-hit-fraction', '0.8', '--prompt-token-ids'])).toEqual([
      '--random-cache-ratio must be > 0 with --random-cache-hit-fraction: it is the share of each warm prompt that is cached',
    ])
    expect(argvIssues(['--random-cache-ratio', '0.5', '--prompt-token-ids'])).toEqual([
      '--random-cache-hit-fraction must be > 0 with --random-cache-ratio: it is the share of prompts that are warm',
    ])
    expect(
      argvIssues(['--random-cache-hit-fraction', '1.5', '--random-cache-ratio', '0.5', '--prompt-token-ids']),
    ).toEqual([
      '--random-cache-hit-fraction must be in [0, 1] (got 1.5)',
      '--random-cache-hit-fraction must be > 0 with --random-cache-ratio: it is the share of prompts that are warm',
    ])
    expect(
      argvIssues([
        '--random-cache-hit-fraction',
        '0.5',
        '--random-cache-ratio',
        '0.5',
        '--random-prefix-len',
        '8',
      ]),
    ).toEqual([
      '--random-cache-hit-fraction needs --prompt-token-ids, so that warm prompts send identical token ids and hit the prefix cache',
      '--random-prefix-len cannot be used with --random-cache-hit-fraction: the cached prefix is --random-cache-ratio of each warm prompt',
    ])
  })
})

describe('random prompts with a warm prefix cache', () => {
  const config = (fraction: number, ratio: number): RandomDatasetConfig =>
    randomConfig({ promptTokenIds: true, cacheHit: { fraction, ratio } })

  it('starts a warm share of the prompts with round(L × ratio) shared ids; the rest share none', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(config(0.5, 0.75), { tokenizer, numPrompts: 200, seed: 7 })
    expect(requests).toHaveLength(200)
    for (const r of requests) {
      expect(r.promptTokenIds).toHaveLength(64)
      expect(r.promptLen).toBe(64)
      expect(r.expectedOutputLen).toBe(16)
    }
    // The shared prefix is the most common run of the first 48 ids (round(64 × 0.75)).
    const heads = requests.map((r) => (r.promptTokenIds as number[]).slice(0, 48).join(','))
    const counts = new Map<string, number>()
    for (const head of heads) counts.set(head, (counts.get(head) ?? 0) + 1)
    const [shared, warm] = [...counts].sort((a, b) => b[1] - a[1])[0]!
    expect(warm).toBeGreaterThan(70)
    expect(warm).toBeLessThan(130)
    // Cold prompts share no more than their first id with the prefix, and differ from each other.
    const prefix = shared.split(',').map(Number)
    const cold = requests.filter((_, i) => heads[i] !== shared)
    expect(cold).toHaveLength(200 - warm)
    for (const r of cold) expect((r.promptTokenIds as number[]).slice(0, 8)).not.toEqual(prefix.slice(0, 8))
    // After the cached part each prompt is its own: no two warm prompts end alike.
    const tails = new Set(
      requests.filter((_, i) => heads[i] === shared).map((r) => r.promptTokenIds!.slice(48).join(',')),
    )
    expect(tails.size).toBe(warm)
  })

  it('is the same for the same seed; every prompt is warm at fraction 1', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const a = await generateRequests(config(0.3, 0.5), { tokenizer, numPrompts: 20, seed: 1 })
    const b = await generateRequests(config(0.3, 0.5), { tokenizer, numPrompts: 20, seed: 1 })
    expect(b).toEqual(a)
    const all = await generateRequests(config(1, 0.5), { tokenizer, numPrompts: 20, seed: 1 })
    const heads = new Set(all.map((r) => r.promptTokenIds!.slice(0, 32).join(',')))
    expect(heads.size).toBe(1)
  })
})
