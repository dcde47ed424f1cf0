import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../tokenizer/index.ts'
import { generateRequests } from '../index.ts'
import type { TimedTraceDatasetConfig } from './timed-trace.ts'
import { DEFAULT_TIMED_TRACE_LABELS, traceOffsetsS, traceTokenIds } from './timed-trace.ts'

const FIXTURE = resolve(import.meta.dirname, '../../../fixtures/datasets/timed-trace.jsonl')

function trace(overrides: Partial<TimedTraceDatasetConfig> = {}): TimedTraceDatasetConfig {
  return {
    kind: 'timed_trace',
    path: FIXTURE,
    chunkHashSize: 16,
    secMultiplier: 0.001,
    labels: { ...DEFAULT_TIMED_TRACE_LABELS },
    selfTimed: true,
    ...overrides,
  }
}

async function tmpTrace(lines: string[]): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'servebench-trace-')), 'trace.jsonl')
  await writeFile(path, `${lines.join('\n')}\n`)
  return path
}

const ALLOWED = Array.from({ length: 1000 }, (_, i) => i + 10)

describe('timed_trace dataset', () => {
  // Vectors of the Rust port's tests (datasets/timed_trace.rs).
  it('expands hash ids into chunks: (ts 1000, in 40, [1,2,3]) and (2500, in 32, [1,4])', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const path = await tmpTrace([
      '{"timestamp": 1000, "input_length": 40, "output_length": 7, "hash_ids": [1, 2, 3]}',
      '{"timestamp": 2500, "input_length": 32, "output_length": 9, "hash_ids": [1, 4]}',
    ])
    const requests = await generateRequests(trace({ path }), { tokenizer, numPrompts: 10, seed: 0 })
    expect(requests).toHaveLength(2)
    expect(requests[0]!.promptLen).toBe(40)
    expect(requests[0]!.promptTokenIds).toHaveLength(40)
    expect(requests[0]!.expectedOutputLen).toBe(7)
    expect(requests.map((r) => r.timestampS)).toEqual([1, 2.5])
    expect(requests[1]!.promptTokenIds!.slice(0, 16)).toEqual(requests[0]!.promptTokenIds!.slice(0, 16))
    expect(traceOffsetsS(requests)).toEqual([0, 1.5])
  })

  it('shares the first chunk of [7, 8] and [7, 9] and differs after it', () => {
    const a = traceTokenIds({ inputLength: 32, hashIds: [7n, 8n] }, 16, ALLOWED)
    const b = traceTokenIds({ inputLength: 32, hashIds: [7n, 9n] }, 16, ALLOWED)
    expect(a.slice(0, 16)).toEqual(b.slice(0, 16))
    expect(a.slice(16)).not.toEqual(b.slice(16))
  })

  it('gives a shorter prompt when there are too few hash ids (input 100, [1] → 16)', () => {
    expect(traceTokenIds({ inputLength: 100, hashIds: [1n] }, 16, ALLOWED)).toHaveLength(16)
  })

  it('reads rows in file order until numPrompts; a reload gives the same ids', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const first = await generateRequests(trace(), { tokenizer, numPrompts: 3, seed: 0 })
    expect(first.map((r) => r.promptLen)).toEqual([40, 32, 48])
    expect(first.map((r) => r.expectedOutputLen)).toEqual([6, 4, 8])
    expect(await generateRequests(trace(), { tokenizer, numPrompts: 3, seed: 99 })).toEqual(first)
    for (const r of first) expect(r.prompt).toBe(await tokenizer.decode(r.promptTokenIds!))
  })

  it('orders self-timed requests by timestamp and leaves timestamps off otherwise', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const path = await tmpTrace([
      '{"timestamp": 5, "input_length": 16, "output_length": 1, "hash_ids": [1]}',
      '{"timestamp": 2, "input_length": 16, "output_length": 2, "hash_ids": [2]}',
    ])
    const timed = await generateRequests(trace({ path, secMultiplier: 1 }), {
      tokenizer,
      numPrompts: 2,
      seed: 0,
    })
    expect(timed.map((r) => r.expectedOutputLen)).toEqual([2, 1])
    expect(traceOffsetsS(timed)).toEqual([0, 3])
    const untimed = await generateRequests(trace({ path, selfTimed: false }), {
      tokenizer,
      numPrompts: 2,
      seed: 0,
    })
    expect(untimed.map((r) => r.expectedOutputLen)).toEqual([1, 2])
    expect(traceOffsetsS(untimed)).toBeUndefined()
  })

  it('names the field and its label flag when a field is missing, and the line of a bad value', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const context = { tokenizer, numPrompts: 5, seed: 0 }
    const path = await tmpTrace([
      '{"timestamp": 1, "input_length": 4, "output_length": 1}',
      '',
      '{"timestamp": 2, "output_length": 1}',
    ])
    const labels = { ...DEFAULT_TIMED_TRACE_LABELS, inputLength: 'input_len' }
    await expect(generateRequests(trace({ path, labels }), context)).rejects.toThrow(
      `timed_trace: ${path}:1: field "input_len" is missing (set its name with --timed-trace-label-input-length)`,
    )
    await expect(generateRequests(trace({ path }), context)).rejects.toThrow(
      `timed_trace: ${path}:3: field "input_length" is missing (set its name with --timed-trace-label-input-length)`,
    )
    const bad = await tmpTrace(['{"timestamp": "soon", "input_length": 4, "output_length": 1}'])
    await expect(generateRequests(trace({ path: bad }), context)).rejects.toThrow(
      `timed_trace: ${bad}:1: field "timestamp" must be a non-negative number (got "soon")`,
    )
    const early = await tmpTrace(['{"timestamp": -5, "input_length": 4, "output_length": 1}'])
    await expect(generateRequests(trace({ path: early }), context)).rejects.toThrow(
      `timed_trace: ${early}:1: field "timestamp" must be a non-negative number (got -5)`,
    )
    const negative = await tmpTrace(['{"timestamp": 0, "input_length": -4, "output_length": 1}'])
    await expect(generateRequests(trace({ path: negative }), context)).rejects.toThrow(
      `timed_trace: ${negative}:1: field "input_length" must be a non-negative integer (got -4)`,
    )
    const hashes = await tmpTrace([
      '{"timestamp": 0, "input_length": 4, "output_length": 1, "hash_ids": [1, "x"]}',
    ])
    await expect(generateRequests(trace({ path: hashes }), context)).rejects.toThrow(
      `timed_trace: ${hashes}:1: field "hash_ids" must hold non-negative integers (got "x")`,
    )
  })
})
