import { describe, expect, it } from 'vitest'
import { issuesOf } from '../../test/config-doors.ts'
import type { ServeBenchOptions } from '../config/dsl-options.ts'
import { datasets, load } from '../vitest/runtime/builders.ts'
import { benchConfigFromDsl } from './from-dsl.ts'

const ctx = { name: 'local', defaultBaseUrl: 'http://127.0.0.1:4321', simulator: true }
const dslIssues = (options: ServeBenchOptions): string[] => issuesOf(() => benchConfigFromDsl(options, ctx))

describe('local datasets in the DSL', () => {
  it('builds each dataset config with its defaults', () => {
    const cases: Array<[ServeBenchOptions['dataset'], object]> = [
      [
        datasets.custom({ path: 'a.jsonl', outputLen: -1 }),
        { kind: 'custom', path: 'a.jsonl', outputLen: -1 },
      ],
      [datasets.sonnet(), { kind: 'sonnet', inputLen: 550, outputLen: 150, prefixLen: 200 }],
      [
        datasets.prefixRepetition({ numPrefixes: 2 }),
        { kind: 'prefix_repetition', numPrefixes: 2, prefixLen: 256 },
      ],
      [datasets.burstgpt({ path: 'b.csv' }), { kind: 'burstgpt', path: 'b.csv' }],
      [
        datasets.speedBench({ path: 'd', subset: 'throughput_2k' }),
        { kind: 'speed_bench', subset: 'throughput_2k', outputLen: 4096 },
      ],
      [datasets.specBench({ path: 'q.jsonl' }), { kind: 'spec_bench', outputLen: 256 }],
      [
        datasets.timedTrace({ path: 't.jsonl', labels: { hashIds: 'blocks' } }),
        {
          kind: 'timed_trace',
          selfTimed: true,
          chunkHashSize: 16,
          labels: { hashIds: 'blocks', timestamp: 'timestamp' },
        },
      ],
    ]
    for (const [dataset, expected] of cases) {
      const config = benchConfigFromDsl(
        { dataset: { ...dataset!, numPrompts: 4 } as ServeBenchOptions['dataset'] },
        ctx,
      )
      expect(config.dataset).toMatchObject(expected)
      expect(config.numPrompts).toBe(4)
    }
  })

  it('reports every bad field with its path', () => {
    expect(
      dslIssues({ dataset: datasets.prefixRepetition({ prefixLen: 0, suffixLen: 0, outputLen: 1.5 }) }),
    ).toEqual([
      `serveBench('local').dataset.outputLen must be an integer (got "1.5")`,
      "serveBench('local').dataset.suffixLen and dataset.prefixLen are both 0; a prompt needs at least 1 token",
    ])
    expect(dslIssues({ dataset: datasets.custom({ path: '', outputLen: 0 }) })).toEqual([
      "serveBench('local').dataset.path is required with datasets.custom() (a .jsonl file)",
      "serveBench('local').dataset.outputLen must be -1 (each line's output_tokens) or at least 1 (got 0)",
    ])
    expect(
      dslIssues({ dataset: datasets.speedBench({ path: 'd', subset: 'huge' as 'qualitative' }) }),
    ).toEqual([
      `serveBench('local').dataset.subset must be one of qualitative, throughput_1k, throughput_2k, throughput_8k, throughput_16k, throughput_32k (got "huge")`,
    ])
  })

  it('rejects a computed load with a self-timed trace, and a chat backend', () => {
    expect(
      dslIssues({ dataset: datasets.timedTrace({ path: 't' }), load: load.poisson({ rate: 5 }) }),
    ).toEqual([
      "serveBench('local').load.rate has no effect under trace-driven timing (timed_trace sends each request at its trace timestamp); set dataset.selfTimed: false to use it",
    ])
    expect(() =>
      benchConfigFromDsl(
        { dataset: datasets.timedTrace({ path: 't' }), load: load.closed({ concurrency: 2 }) },
        ctx,
      ),
    ).not.toThrow()
    expect(() =>
      benchConfigFromDsl(
        { dataset: datasets.timedTrace({ path: 't', selfTimed: false }), load: load.poisson({ rate: 5 }) },
        ctx,
      ),
    ).not.toThrow()
    expect(
      dslIssues({
        endpoint: { kind: 'endpoint', backend: 'openai-chat' },
        dataset: datasets.timedTrace({ path: 't', secMultiplier: 0 }),
      }),
    ).toEqual([
      "serveBench('local').endpoint.backend must be a completions backend (vllm or openai) with datasets.timedTrace(): it sends token-id prompts (got openai-chat)",
      "serveBench('local').dataset.secMultiplier must be a finite number > 0 (got 0)",
    ])
  })

  it("checks a nested option's keys as an object's, and load.trace() scales the trace's own times", () => {
    const labels = (value: unknown): string[] =>
      dslIssues({
        dataset: { ...datasets.timedTrace({ path: 't' }), labels: value } as ServeBenchOptions['dataset'],
      })
    expect(labels({ hashId: 'blocks' })).toEqual([
      "serveBench('local').dataset.labels.hashId is not an option of datasets.timedTrace() labels; did you mean 'hashIds'? (valid: timestamp, inputLength, outputLength, hashIds)",
    ])
    expect(labels('blocks')).toEqual(["serveBench('local').dataset.labels must be an object (got 'blocks')"])
    const config = benchConfigFromDsl(
      {
        dataset: datasets.timedTrace({ path: 't', secMultiplier: 0.001 }),
        load: load.trace({ timeScale: 0.5 }),
      },
      ctx,
    )
    expect(config.dataset).toMatchObject({ kind: 'timed_trace', secMultiplier: 0.0005, selfTimed: true })
    expect(
      dslIssues({ dataset: datasets.timedTrace({ path: 't', selfTimed: false }), load: load.trace() }),
    ).toEqual([
      "serveBench('local').dataset.selfTimed is false, but load.trace() sends each request at its trace timestamp; drop selfTimed: false or use another load",
    ])
  })
})
