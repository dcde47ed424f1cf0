import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { findFlag } from '../cli/flags.ts'
import { RESOLVED_DATASET_NAMES } from '../datasets/resolvers.ts'
import { datasets } from '../vitest/runtime/builders.ts'
import { DATASET_NAMES, DATASET_REGISTRY, renderDatasetTable } from './dataset-registry.ts'

describe('the dataset registry', () => {
  it('gives each entry a DSL builder that tags its kind', () => {
    for (const entry of DATASET_REGISTRY) {
      const build = (datasets as unknown as Record<string, (o?: object) => { kind: string }>)[entry.builder]
      expect(build, entry.builder).toBeTypeOf('function')
      expect(build!({ numPrompts: 2 })).toEqual({ numPrompts: 2, kind: entry.kind })
    }
    expect(Object.keys(datasets).sort()).toEqual(DATASET_REGISTRY.map((e) => e.builder).sort())
  })

  it('is what --dataset-name accepts, and every name has a resolver', () => {
    expect(findFlag('--dataset-name')?.choices).toEqual(DATASET_NAMES)
    expect([...RESOLVED_DATASET_NAMES].sort()).toEqual([...DATASET_NAMES].sort())
  })

  it('is the table of docs/datasets.md', () => {
    const docs = readFileSync(new URL('../../docs/datasets.md', import.meta.url), 'utf8')
    expect(docs).toContain(renderDatasetTable())
  })
})
