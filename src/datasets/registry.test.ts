import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { findFlag, SERVE_FLAGS } from '../cli/flags.ts'
import { withDatasetTable } from '../cli/gen-docs.ts'
import type { DatasetConfig } from '../config/bench-config.ts'
import { defaultBenchConfig } from '../config/defaults.ts'
import { datasets } from '../vitest/runtime/builders.ts'
import {
  DATASET_FLAG_ROWS,
  DATASET_NAMES,
  DATASET_REGISTRY,
  DATASET_RESOLVERS,
  DATASETS,
  datasetOf,
  generatorOf,
  moduleOf,
  renderDatasetTable,
} from './registry.ts'

describe('the dataset registry', () => {
  it('gives each entry a DSL builder that tags its kind', () => {
    for (const entry of DATASET_REGISTRY) {
      const build = (datasets as unknown as Record<string, (o?: object) => { kind: string }>)[entry.builder]
      expect(build, entry.builder).toBeTypeOf('function')
      expect(build!({ numPrompts: 2 })).toEqual({ numPrompts: 2, kind: entry.kind })
    }
    expect(Object.keys(datasets).sort()).toEqual(DATASET_REGISTRY.map((e) => e.builder).sort())
  })

  it('names each module by its builder, and finds it by its kind', () => {
    for (const [builder, entry] of Object.entries(DATASETS)) {
      expect(entry.builder).toBe(builder)
      expect(datasetOf(entry.kind)).toBe(entry)
    }
    expect(DATASET_REGISTRY).toEqual(Object.values(DATASETS))
    expect(datasetOf('nope')).toBeUndefined()
    expect(moduleOf({ kind: 'timed_trace' } as DatasetConfig).builder).toBe('timedTrace')
  })

  it('keeps what only a dataset knows in its module: server alignment, own send times, run refusals, conversations', () => {
    const withHook = (hook: keyof (typeof DATASET_REGISTRY)[number]): string[] =>
      DATASET_REGISTRY.filter((e) => e[hook] !== undefined && e[hook] !== false).map((e) => e.kind)
    expect(withHook('alignsToServerTokenizer')).toEqual(['random', 'prefix_repetition'])
    expect(withHook('sendOffsetsS')).toEqual(['timed_trace'])
    expect(withHook('runIssues')).toEqual(['random'])
    expect(withHook('conversations')).toEqual(['random', 'sharegpt', 'hf'])
    const random = moduleOf({ kind: 'random' } as DatasetConfig)
    expect(random.runIssues?.({ ...defaultBenchConfig().dataset, inputLen: 10_000_001 })).toEqual([
      { path: '--random-input-len', message: 'must be at most 10000000 tokens (got 10000001)' },
    ])
  })

  it('is what --dataset-name accepts, and every name has a resolver', () => {
    expect(findFlag('--dataset-name')?.choices).toEqual(DATASET_NAMES)
    for (const name of DATASET_NAMES) expect(DATASET_RESOLVERS.resolverOf(name), name).toBeTypeOf('function')
    expect(DATASET_NAMES).toContain('prefix-repetition')
  })

  it('has a generator for every dataset config kind but multi-turn', () => {
    for (const entry of DATASET_REGISTRY.filter((e) => e.kind !== 'multi-turn'))
      expect(generatorOf({ kind: entry.kind } as DatasetConfig), entry.kind).toBeTypeOf('function')
    expect(() => generatorOf({ kind: 'nope' } as unknown as DatasetConfig)).toThrow(
      'no generator for dataset nope. This is a bug in servebench.',
    )
  })

  it('writes each dataset flag row once, and the flag table lists it as written', () => {
    const byName = new Map<string, object>()
    for (const row of DATASET_REGISTRY.flatMap((e) => e.flags)) {
      const seen = byName.get(row.name)
      if (seen !== undefined) expect(seen, `${row.name} is written twice`).toBe(row)
      byName.set(row.name, row)
    }
    for (const row of DATASET_FLAG_ROWS) {
      expect(findFlag(row.name), row.name).toMatchObject({ ...row, group: 'Dataset' })
      expect(SERVE_FLAGS.filter((flag) => flag.name === row.name)).toHaveLength(1)
    }
  })

  it('maps every DSL field to a flag of the flag table', () => {
    for (const entry of DATASET_REGISTRY)
      for (const [field, spec] of Object.entries(entry.fields))
        expect(findFlag(spec.flag), `datasets.${entry.builder}().${field} → ${spec.flag}`).toBeDefined()
  })

  it('is the table of docs/datasets.md (npm run docs:cli writes it), whose sections name every dataset flag', () => {
    const docs = readFileSync(new URL('../../docs/datasets.md', import.meta.url), 'utf8')
    expect(docs).toContain(renderDatasetTable())
    expect(withDatasetTable(docs)).toBe(docs)
    const hubDocs = readFileSync(new URL('../../docs/datasets-hub.md', import.meta.url), 'utf8')
    const undocumented = DATASET_FLAG_ROWS.filter(
      (row) => !docs.includes(`\`${row.name}\``) && !hubDocs.includes(`\`${row.name}\``),
    ).map((row) => row.name)
    expect(undocumented).toEqual([])
  })
})
