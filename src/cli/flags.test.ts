import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CAPACITY_COMMAND_FLAGS } from './capacity-flags.ts'
import { findFlag, SERVE_FLAGS } from './flags.ts'
import { CAPACITY_DOC_PATH, CLI_DOC_PATH, renderCliFlagsDoc, withCapacityFlagTable } from './gen-docs.ts'

// Python flags servebench does not implement yet; each is rejected with a clear message.
// The list must shrink as features land: a flag here that became supported fails the test.
const PYTHON_GAPS = SERVE_FLAGS.filter((f) => f.status === 'planned').map((f) => f.name)

describe('flag table', () => {
  const python = readFileSync(new URL('../../fixtures/flags/python-serve-flags.txt', import.meta.url), 'utf8')
    .split('\n')
    .filter(Boolean)

  it('knows every long flag of Python `vllm bench serve`', () => {
    const missing = python.filter((name) => !findFlag(name))
    expect(missing).toEqual([])
  })

  it('lists each planned flag as a Python or Rust flag, so the gap list stays honest', () => {
    for (const name of PYTHON_GAPS) {
      expect(findFlag(name)?.parity, name).not.toBe('servebench')
    }
    expect(python.length).toBe(105)
  })

  it('has no duplicate names or aliases', () => {
    const names = SERVE_FLAGS.flatMap((f) => [f.name, ...(f.aliases ?? [])])
    expect(new Set(names).size).toBe(names.length)
  })

  it('matches the generated docs/cli-flags.md (run `npm run docs:cli` after changing flags)', () => {
    expect(readFileSync(CLI_DOC_PATH, 'utf8')).toBe(renderCliFlagsDoc())
  })

  it("matches docs/capacity.md's table of the capacity flags (run `npm run docs:cli`)", () => {
    const doc = readFileSync(CAPACITY_DOC_PATH, 'utf8')
    expect(doc).toBe(withCapacityFlagTable(doc))
    expect(doc).toContain('| `--slo` | list |')
  })

  it('the capacity flags share no name with the serve flags they are read with', () => {
    const names = CAPACITY_COMMAND_FLAGS.flatMap((f) => [f.name, ...(f.aliases ?? [])])
    expect(new Set(names).size).toBe(names.length)
  })
})
