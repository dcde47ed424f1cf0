import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../tokenizer/index.ts'
import { generateRequests } from '../index.ts'
import type { SpecBenchDatasetConfig } from './spec-bench.ts'
import type { SpeedBenchDatasetConfig } from './speed-bench.ts'

const DIR = resolve(import.meta.dirname, '../../../fixtures/datasets/speed-bench')
const SPEC = resolve(import.meta.dirname, '../../../fixtures/datasets/spec-bench/question.jsonl')

function speed(overrides: Partial<SpeedBenchDatasetConfig> = {}): SpeedBenchDatasetConfig {
  return {
    kind: 'speed_bench',
    path: DIR,
    subset: 'qualitative',
    outputLen: 4096,
    disableShuffle: false,
    noOversample: true,
    ...overrides,
  }
}

function spec(overrides: Partial<SpecBenchDatasetConfig> = {}): SpecBenchDatasetConfig {
  return {
    kind: 'spec_bench',
    path: SPEC,
    outputLen: 256,
    disableShuffle: false,
    noOversample: false,
    ...overrides,
  }
}

describe('speed_bench dataset', () => {
  it('reads {subset}.jsonl, skipping placeholder, multi-turn and too-short rows', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(speed(), { tokenizer, numPrompts: 100, seed: 0 })
    expect(requests).toHaveLength(5)
    for (const r of requests) {
      expect(r.prompt).not.toContain('FULL BENCHMARK DATA')
      expect(r.prompt).not.toBe('Hi')
      expect(r.promptLen).toBe((await tokenizer.encode(r.prompt)).length)
      expect(r.expectedOutputLen).toBe(4096)
    }
    const throughput = await generateRequests(speed({ subset: 'throughput_1k', outputLen: 32 }), {
      tokenizer,
      numPrompts: 3,
      seed: 0,
    })
    expect(throughput.map((r) => r.prompt).sort()[0]).toMatch(/^Invent ten unusual names/)
  })

  // Rust (load_speed_bench_dataset): a longer prompt keeps the decoded text of its first N tokens.
  it('cuts prompts longer than maxInputLen to the text of their first maxInputLen tokens', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const full = await generateRequests(speed(), { tokenizer, numPrompts: 5, seed: 0 })
    const cut = await generateRequests(speed({ maxInputLen: 6 }), { tokenizer, numPrompts: 5, seed: 0 })
    expect(cut).toHaveLength(full.length)
    for (const [i, request] of cut.entries()) {
      const original = full[i]!
      if (original.promptLen <= 6) {
        expect(request).toEqual(original)
        continue
      }
      const firstIds = (await tokenizer.encode(original.prompt)).slice(0, 6)
      expect(request.prompt).toBe(await tokenizer.decode(firstIds))
      expect(original.prompt.startsWith(request.prompt)).toBe(true)
      expect(request.promptLen).toBe((await tokenizer.encode(request.prompt)).length)
      expect(request.expectedOutputLen).toBe(4096)
    }
    expect(cut.filter((r, i) => r.prompt !== full[i]!.prompt).length).toBeGreaterThan(0)
  })

  it('filters one category, shuffles with the seed and oversamples', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const math = await generateRequests(speed({ category: 'math', noOversample: false }), {
      tokenizer,
      numPrompts: 6,
      seed: 2,
    })
    expect(math).toHaveLength(6)
    for (const r of math) expect(r.prompt).toMatch(/^(Prove|Solve)/)
    const again = await generateRequests(speed({ category: 'math', noOversample: false }), {
      tokenizer,
      numPrompts: 6,
      seed: 2,
    })
    expect(again).toEqual(math)
  })

  it('lists the categories when a filter matches nothing', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    await expect(
      generateRequests(speed({ category: 'poetry' }), { tokenizer, numPrompts: 1, seed: 0 }),
    ).rejects.toThrow(
      `speed_bench: ${join(DIR, 'qualitative.jsonl')} has no usable rows of category "poetry"; its categories are coding, math, qa, rag, roleplay, writing`,
    )
  })

  it('names the file, the line and the field of a bad row', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const dir = await mkdtemp(join(tmpdir(), 'servebench-speed-'))
    await writeFile(join(dir, 'qualitative.jsonl'), '{"turns": ["a fine prompt here"]}\n{"turns": "oops"}\n')
    await expect(
      generateRequests(speed({ path: dir }), { tokenizer, numPrompts: 1, seed: 0 }),
    ).rejects.toThrow(
      `speed_bench: ${join(dir, 'qualitative.jsonl')}:2: field "turns" must be an array of strings (got string)`,
    )
    await expect(
      generateRequests(speed({ path: dir, subset: 'throughput_8k' }), { tokenizer, numPrompts: 1, seed: 0 }),
    ).rejects.toThrow(`speed_bench: --dataset-path ${join(dir, 'throughput_8k.jsonl')} does not exist`)
  })
})

describe('spec_bench dataset', () => {
  it('takes the first turn of each question with the fixed output length', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(spec({ disableShuffle: true }), {
      tokenizer,
      numPrompts: 6,
      seed: 0,
    })
    expect(requests.map((r) => r.prompt.slice(0, 20))).toEqual([
      'Compose an engaging ',
      'Imagine you are in a',
      'The vertices of a tr',
      'Write a program that',
      'Translate into Engli',
      'Summarise in one sen',
    ])
    for (const r of requests) {
      expect(r.expectedOutputLen).toBe(256)
      expect(r.promptLen).toBe((await tokenizer.encode(r.prompt)).length)
    }
  })

  it('filters a category and is reproducible with the seed', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const coding = await generateRequests(spec({ category: 'coding' }), { tokenizer, numPrompts: 3, seed: 1 })
    expect(coding).toHaveLength(3)
    for (const r of coding) expect(r.prompt).toMatch(/^Write a program/)
    const a = await generateRequests(spec(), { tokenizer, numPrompts: 6, seed: 9 })
    expect(await generateRequests(spec(), { tokenizer, numPrompts: 6, seed: 9 })).toEqual(a)
  })
})
