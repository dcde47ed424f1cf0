import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ensureDir, writeFileAtomic, writeFileAtomicSync } from './write-safe.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-write-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe('writeFileAtomic', () => {
  it('replaces a file whole and leaves no temporary file', async () => {
    const path = join(dir, 'result.json')
    await writeFile(path, 'old')
    await writeFileAtomic(path, '{"new":true}')
    expect(await readFile(path, 'utf8')).toBe('{"new":true}')
    expect(await readdir(dir)).toEqual(['result.json'])
  })

  it('leaves the old file and no temporary one when the write fails', async () => {
    const path = join(dir, 'missing-folder', 'result.json')
    await expect(writeFileAtomic(path, 'x')).rejects.toMatchObject({ code: 'ENOENT' })
    expect(await readdir(dir)).toEqual([])
  })
})

describe('ensureDir', () => {
  it('creates missing parents one level at a time', async () => {
    await ensureDir(join(dir, 'a', 'b', 'c'))
    expect(await readdir(join(dir, 'a', 'b'))).toEqual(['c'])
  })

  it('fails under /proc instead of looping as recursive mkdir does', async () => {
    await expect(ensureDir('/proc/servebench-nope/x')).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('names a file in the way', async () => {
    await writeFile(join(dir, 'file'), '')
    await expect(ensureDir(join(dir, 'file', 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' })
  })
})

describe('writeFileAtomicSync', () => {
  it('creates the folder, replaces a file whole and leaves no temporary file', async () => {
    const path = join(dir, 'baselines', 'chat.bench.json')
    writeFileAtomicSync(path, 'old')
    writeFileAtomicSync(path, '{"new":true}')
    expect(await readFile(path, 'utf8')).toBe('{"new":true}')
    expect(await readdir(join(dir, 'baselines'))).toEqual(['chat.bench.json'])
  })

  it('leaves no temporary file when the rename fails', async () => {
    const path = join(dir, 'taken')
    await ensureDir(join(path, 'inside'))
    expect(() => writeFileAtomicSync(path, 'x')).toThrow()
    expect(await readdir(dir)).toEqual(['taken'])
  })
})
