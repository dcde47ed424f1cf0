import { mkdir, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { type FakeHub, fromCacheOnly, gitBlobSha1, startFakeHub } from '../../test/fake-hub.ts'
import { applyChatTemplate } from './chat-template.ts'
import { findLocalTokenizer } from './hf.ts'
import { HubError, hubFile } from './hub.ts'
import { clearTokenizerCache, loadTokenizer } from './index.ts'

// A word-level tokenizer small enough to serve from the fake hub without LFS.
const TOKENIZER = JSON.stringify({
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [
    {
      id: 0,
      content: '<s>',
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    },
  ],
  normalizer: null,
  pre_tokenizer: { type: 'Whitespace' },
  post_processor: null,
  decoder: null,
  model: { type: 'WordLevel', vocab: { '<s>': 0, '<unk>': 1, hello: 2, there: 3 }, unk_token: '<unk>' },
})
const CONFIG_TEMPLATE = '[config]{% for m in messages %}{{ m.content }}{% endfor %}'
const FILE_TEMPLATE = '{{ bos_token }}[file]{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}'
const config = (template?: string): string =>
  JSON.stringify({ bos_token: '<s>', ...(template !== undefined ? { chat_template: template } : {}) })
const USER = [{ role: 'user', content: 'hello there' }]
const COMMIT = 'c'.repeat(40)

describe('chat_template.jinja', () => {
  let dir: string
  let hub: FakeHub
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servebench-chat-template-'))
    hub = await startFakeHub({
      repos: [
        {
          type: 'model',
          id: 'org/jinja',
          commit: COMMIT,
          files: {
            'tokenizer.json': TOKENIZER,
            'tokenizer_config.json': config(CONFIG_TEMPLATE),
            'chat_template.jinja': FILE_TEMPLATE,
          },
        },
        {
          type: 'model',
          id: 'org/config-only',
          commit: COMMIT,
          files: { 'tokenizer.json': TOKENIZER, 'tokenizer_config.json': config(CONFIG_TEMPLATE) },
        },
      ],
    })
    vi.stubEnv('HF_HOME', join(dir, 'hf'))
    vi.stubEnv('HF_HUB_CACHE', '')
    vi.stubEnv('HF_ENDPOINT', hub.endpoint)
    vi.stubEnv('HF_TOKEN', '')
    vi.stubEnv('HF_HUB_OFFLINE', '')
    clearTokenizerCache()
  })
  afterEach(async () => {
    vi.unstubAllEnvs()
    clearTokenizerCache()
    await hub.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('in a local folder, wins over the chat_template of tokenizer_config.json (as transformers)', async () => {
    const folder = join(dir, 'model')
    await mkdir(folder)
    await writeFile(join(folder, 'tokenizer.json'), TOKENIZER)
    await writeFile(join(folder, 'tokenizer_config.json'), config(CONFIG_TEMPLATE))
    expect(applyChatTemplate(await loadTokenizer({ id: folder }), USER)).toBe('[config]hello there')

    await writeFile(join(folder, 'chat_template.jinja'), FILE_TEMPLATE)
    expect(await findLocalTokenizer(folder)).toEqual({
      tokenizerPath: join(folder, 'tokenizer.json'),
      configPath: join(folder, 'tokenizer_config.json'),
      chatTemplatePath: join(folder, 'chat_template.jinja'),
    })
    clearTokenizerCache()
    const tokenizer = await loadTokenizer({ id: folder })
    expect(tokenizer.chatTemplate).toBe(FILE_TEMPLATE)
    // The special tokens still come from the config.
    expect(applyChatTemplate(tokenizer, USER)).toBe('<s>[file]<user>hello there')
    // A path to tokenizer.json finds the file next to it too.
    const byFile = await loadTokenizer({ id: join(folder, 'tokenizer.json') })
    expect(byFile.chatTemplate).toBe(FILE_TEMPLATE)
  })

  it('alone, without a tokenizer_config.json, is the template', async () => {
    const folder = join(dir, 'bare')
    await mkdir(folder)
    await writeFile(join(folder, 'tokenizer.json'), TOKENIZER)
    await writeFile(join(folder, 'chat_template.jinja'), '{{ messages[0].content }}!')
    const tokenizer = await loadTokenizer({ id: folder })
    expect(applyChatTemplate(tokenizer, USER)).toBe('hello there!')
  })

  it('is downloaded from the hub with the other tokenizer files, at the same commit', async () => {
    const tokenizer = await loadTokenizer({ id: 'org/jinja' })
    expect(applyChatTemplate(tokenizer, USER)).toBe('<s>[file]<user>hello there')
    const repo = join(dir, 'hf', 'hub', 'models--org--jinja')
    expect(await readlink(join(repo, 'snapshots', COMMIT, 'chat_template.jinja'))).toBe(
      `../../blobs/${gitBlobSha1(Buffer.from(FILE_TEMPLATE))}`,
    )
    expect(hub.requests).toEqual([
      'HEAD /org/jinja/resolve/main/tokenizer.json',
      'GET /org/jinja/resolve/main/tokenizer.json',
      `HEAD /org/jinja/resolve/${COMMIT}/tokenizer_config.json`,
      `GET /org/jinja/resolve/${COMMIT}/tokenizer_config.json`,
      `HEAD /org/jinja/resolve/${COMMIT}/chat_template.jinja`,
      `GET /org/jinja/resolve/${COMMIT}/chat_template.jinja`,
    ])

    // The cache stage finds it again, offline and with no request.
    clearTokenizerCache()
    const again = await fromCacheOnly(hub, () => loadTokenizer({ id: 'org/jinja' }))
    expect(again.chatTemplate).toBe(FILE_TEMPLATE)
  })

  it('is optional: a 404 is recorded under .no_exist/<commit>/ and not asked for again', async () => {
    const tokenizer = await loadTokenizer({ id: 'org/config-only' })
    expect(applyChatTemplate(tokenizer, USER)).toBe('[config]hello there')
    const repo = join(dir, 'hf', 'hub', 'models--org--config-only')
    expect(await readFile(join(repo, '.no_exist', COMMIT, 'chat_template.jinja'), 'utf8')).toBe('')
    expect(hub.requests).toContain(`HEAD /org/config-only/resolve/${COMMIT}/chat_template.jinja`)

    const before = hub.requests.length
    const error = await hubFile('org/config-only', 'chat_template.jinja', { revision: COMMIT }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(HubError)
    expect((error as HubError).kind).toBe('entry-not-found')
    expect((error as HubError).message).toBe(
      `chat_template.jinja is recorded as missing at ${COMMIT} of model org/config-only (.no_exist in the cache)`,
    )
    expect(hub.requests.length).toBe(before)
  })
})
