import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createRunFolder, pruneRunFolders } from './run-folder.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-runs-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('run folders', () => {
  it('names a run after its start and numbers runs that start in the same second', async () => {
    const start = new Date(Date.UTC(2026, 11, 1, 18, 11, 1))
    expect(await createRunFolder(dir, start)).toBe('run-20261201-181101')
    expect(await createRunFolder(dir, start)).toBe('run-20261201-181101-2')
  })

  it('keeps the newest runs and the current one, and leaves other files alone', async () => {
    const names = [
      'run-20261201-100000',
      'run-20261201-110000',
      'run-20261201-110000-2',
      'run-20261201-120000',
    ]
    for (const n of names) await mkdir(join(dir, n))
    await mkdir(join(dir, 'keep-me'))
    await writeFile(join(dir, 'servebench-summary.json'), '{}')
    const removed = await pruneRunFolders(dir, 2, 'run-20261201-120000')
    expect(removed).toEqual(['run-20261201-100000', 'run-20261201-110000'])
    expect((await readdir(dir)).sort()).toEqual([
      'keep-me',
      'run-20261201-110000-2',
      'run-20261201-120000',
      'servebench-summary.json',
    ])
    expect(await pruneRunFolders(dir, Number.POSITIVE_INFINITY, 'run-20261201-120000')).toEqual([])
  })
})
