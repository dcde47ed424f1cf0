import { mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  datasetRepo,
  type FakeHub,
  fromCacheOnly,
  sha256,
  startFakeHub,
  stubHubEnv,
} from '../../../test/fake-hub.ts'
import { loadTokenizer, type Tokenizer } from '../../tokenizer/index.ts'
import { isValidSequence } from './hub-sampling.ts'
import type { ShareGptDatasetConfig } from './sharegpt.ts'
import { generateShareGpt, SHAREGPT_HUB_FILE, SHAREGPT_HUB_REPO } from './sharegpt.ts'

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures/datasets')
const SMALL = join(FIXTURES, 'sharegpt-small.json')
const base: ShareGptDatasetConfig = {
  kind: 'sharegpt',
  path: SMALL,
  disableShuffle: false,
  noOversample: false,
}

let tokenizer: Tokenizer
let turns: Array<{ prompt: string; completion: string }>
beforeAll(async () => {
  tokenizer = await loadTokenizer({ id: 'cl100k_base' })
  const data = JSON.parse(await readFile(SMALL, 'utf8')) as Array<{ conversations: Array<{ value: string }> }>
  turns = data
    .filter((d) => d.conversations.length >= 2)
    .map((d) => ({ prompt: d.conversations[0]!.value, completion: d.conversations[1]!.value }))
})

describe('sharegpt', () => {
  it('samples turn 0 as the prompt with exact token counts, and turn 1 for the output length', async () => {
    const requests = await generateShareGpt(base, { tokenizer, numPrompts: 5, seed: 0 })
    expect(requests).toHaveLength(5)
    for (const request of requests) {
      const turn = turns.find((t) => t.prompt === request.prompt)
      expect(turn).toBeDefined()
      expect(request.promptLen).toBe((await tokenizer.encode(request.prompt)).length)
      expect(request.expectedOutputLen).toBe((await tokenizer.encode(turn!.completion)).length)
      expect(Object.keys(request).sort()).toEqual(['expectedOutputLen', 'prompt', 'promptLen'])
    }
  })

  it('drops short prompts, short outputs, one-turn and empty conversations, in file order without shuffle', async () => {
    const requests = await generateShareGpt(
      { ...base, disableShuffle: true, noOversample: true },
      { tokenizer, numPrompts: 100, seed: 0 },
    )
    expect(requests.map((r) => r.prompt)).toEqual(turns.slice(0, 10).map((t) => t.prompt))
  })

  it('a fixed output length skips the minimum-output check', async () => {
    const requests = await generateShareGpt(
      { ...base, outputLen: 2, disableShuffle: true, noOversample: true },
      { tokenizer, numPrompts: 100, seed: 0 },
    )
    expect(requests).toHaveLength(11)
    expect(requests.at(-1)!.prompt).toBe('Say the single word yes and nothing else please.')
    expect(requests.every((r) => r.expectedOutputLen === 2)).toBe(true)
  })

  it('oversamples a small file up to --num-prompts unless --no-oversample', async () => {
    const requests = await generateShareGpt(base, { tokenizer, numPrompts: 25, seed: 3 })
    expect(requests).toHaveLength(25)
    const valid = new Set(turns.slice(0, 10).map((t) => t.prompt))
    expect(requests.every((r) => valid.has(r.prompt))).toBe(true)
    expect(
      await generateShareGpt({ ...base, noOversample: true }, { tokenizer, numPrompts: 25, seed: 3 }),
    ).toHaveLength(10)
  })

  it('is reproducible for a seed and shuffles differently for another', async () => {
    const a = await generateShareGpt(base, { tokenizer, numPrompts: 8, seed: 7 })
    const b = await generateShareGpt(base, { tokenizer, numPrompts: 8, seed: 7 })
    const c = await generateShareGpt(base, { tokenizer, numPrompts: 8, seed: 8 })
    expect(a).toEqual(b)
    expect(c.map((r) => r.prompt)).not.toEqual(a.map((r) => r.prompt))
  })

  it('names the file, the line and the column of malformed JSON', async () => {
    const path = join(FIXTURES, 'sharegpt-malformed.json')
    await expect(generateShareGpt({ ...base, path }, { tokenizer, numPrompts: 1, seed: 0 })).rejects.toThrow(
      `sharegpt: ${path}: not valid JSON (Expected ',' or '}' after property value at line 4, column 18)`,
    )
  })

  it('names the file, the entry and the field of a wrongly shaped entry', async () => {
    const path = join(FIXTURES, 'sharegpt-bad-field.json')
    await expect(generateShareGpt({ ...base, path }, { tokenizer, numPrompts: 1, seed: 0 })).rejects.toThrow(
      `sharegpt: ${path}: entry 1: field "conversations[0].value" must be a string`,
    )
    await expect(
      generateShareGpt(
        { ...base, path: join(FIXTURES, 'absent.json') },
        { tokenizer, numPrompts: 1, seed: 0 },
      ),
    ).rejects.toThrow(`sharegpt: --dataset-path ${join(FIXTURES, 'absent.json')} does not exist`)
  })

  // Vectors of the Rust port's ShareGPT validity tests (datasets/sharegpt.rs).
  it('applies the Python validity bounds', () => {
    expect(isValidSequence(100, 50)).toBe(true)
    expect(isValidSequence(3, 50)).toBe(false)
    expect(isValidSequence(100, 3)).toBe(false)
    expect(isValidSequence(100, 1, { skipMinOutputLenCheck: true })).toBe(true)
    expect(isValidSequence(1025, 50)).toBe(false)
    expect(isValidSequence(1024, 1025)).toBe(false)
  })
})

describe('sharegpt image and video fields', () => {
  const MEDIA = join(FIXTURES, 'sharegpt-media.json')
  const media: ShareGptDatasetConfig = { ...base, path: MEDIA, disableShuffle: true, noOversample: true }
  const chat = { numPrompts: 10, seed: 0, backend: 'openai-chat' as const }

  it('reads local files as base64 data URLs, sends URLs as they are, image before video', async () => {
    const jpeg = await readFile(join(FIXTURES, 'media/red.jpg'))
    const mp4 = await readFile(join(FIXTURES, 'media/clip.mp4'))
    const requests = await generateShareGpt(media, { ...chat, tokenizer })
    expect(requests).toHaveLength(5)
    expect(requests.map((r) => r.multiModalContent)).toEqual([
      [{ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}` } }],
      [{ type: 'image_url', image_url: { url: 'https://images.example.org/cat.png' } }],
      [{ type: 'video_url', video_url: { url: `data:video/mp4;base64,${mp4.toString('base64')}` } }],
      // "image": "" is skipped, as Python's `if image := entry.get("image")` does.
      [{ type: 'video_url', video_url: { url: 'https://videos.example.org/clip.mp4' } }],
      undefined,
    ])
    for (const request of requests) {
      expect(request.promptLen).toBe((await tokenizer.encode(request.prompt)).length)
    }
    expect(Object.keys(requests[4]!).sort()).toEqual(['expectedOutputLen', 'prompt', 'promptLen'])
  })

  it('is reproducible for a seed, and oversampled copies keep their media', async () => {
    const config = { ...media, disableShuffle: false, noOversample: false }
    const a = await generateShareGpt(config, { ...chat, tokenizer, numPrompts: 9, seed: 5 })
    expect(a).toEqual(await generateShareGpt(config, { ...chat, tokenizer, numPrompts: 9, seed: 5 }))
    expect(a).toHaveLength(9)
    expect(a.filter((r) => r.multiModalContent !== undefined).length).toBeGreaterThanOrEqual(4)
  })

  it('warns once when the backend cannot send them', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const requests = await generateShareGpt(media, { tokenizer, numPrompts: 10, seed: 0 })
      expect(requests).toHaveLength(5)
      expect(warn.mock.calls).toEqual([
        [
          'servebench: sharegpt: 4 of the sampled entries carry an image or video, which only ' +
            '--backend openai-chat sends; --backend vllm sends their text only',
        ],
      ])
    } finally {
      warn.mockRestore()
    }
  })

  it('names the entry and the file of a missing image, and a field that is not a string', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'servebench-sharegpt-media-'))
    try {
      const conversations = [
        { from: 'human', value: 'Please describe this picture in a few short words.' },
        { from: 'gpt', value: 'It shows a quiet street at night under the rain.' },
      ]
      const missing = join(dir, 'missing.json')
      await writeFile(missing, JSON.stringify([{ conversations, image: 'pics/none.jpg' }]))
      await expect(generateShareGpt({ ...media, path: missing }, { ...chat, tokenizer })).rejects.toThrow(
        `sharegpt: ${missing}: entry 0: image ${join(dir, 'pics/none.jpg')} does not exist`,
      )
      const notImage = join(dir, 'not-image.json')
      await writeFile(join(dir, 'notes.jpg'), 'plain text, not an image')
      await writeFile(notImage, JSON.stringify([{ conversations, image: 'notes.jpg' }]))
      await expect(generateShareGpt({ ...media, path: notImage }, { ...chat, tokenizer })).rejects.toThrow(
        `sharegpt: ${notImage}: entry 0: image ${join(dir, 'notes.jpg')} is not a JPEG, PNG, GIF, WebP, BMP or TIFF file`,
      )
      const list = join(dir, 'list.json')
      await writeFile(list, JSON.stringify([{ conversations, video: ['a.mp4'] }]))
      await expect(generateShareGpt({ ...media, path: list }, { ...chat, tokenizer })).rejects.toThrow(
        `sharegpt: ${list}: entry 0: field "video" must be a string (a path or a URL)`,
      )
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('sharegpt from the hub', () => {
  let home: string
  let hub: FakeHub
  let bytes: Buffer
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servebench-sharegpt-'))
    bytes = await readFile(SMALL)
    hub = await startFakeHub({
      repos: [
        datasetRepo(SHAREGPT_HUB_REPO, {
          files: { [SHAREGPT_HUB_FILE]: bytes },
        }),
      ],
    })
    stubHubEnv(hub, home)
  })
  afterEach(async () => {
    vi.unstubAllEnvs()
    await hub.close()
    await rm(home, { recursive: true, force: true })
  })

  it('downloads the file into the datasets cache when no path is given, then reuses it offline', async () => {
    const config: ShareGptDatasetConfig = { kind: 'sharegpt', disableShuffle: false, noOversample: false }
    const first = await generateShareGpt(config, { tokenizer, numPrompts: 4, seed: 1 })
    const link = join(
      home,
      'hub',
      'datasets--anon8231489123--ShareGPT_Vicuna_unfiltered',
      'snapshots',
      'c'.repeat(40),
      SHAREGPT_HUB_FILE,
    )
    expect(await readlink(link)).toBe(`../../blobs/${sha256(bytes)}`)
    const again = await fromCacheOnly(hub, () =>
      generateShareGpt(config, { tokenizer, numPrompts: 4, seed: 1 }),
    )
    expect(again).toEqual(first)
  })

  it('offline with no cache says what to download and where it would be cached', async () => {
    vi.stubEnv('HF_HUB_OFFLINE', '1')
    const config: ShareGptDatasetConfig = { kind: 'sharegpt', disableShuffle: false, noOversample: false }
    const dir = join(home, 'hub', 'datasets--anon8231489123--ShareGPT_Vicuna_unfiltered')
    await expect(generateShareGpt(config, { tokenizer, numPrompts: 4, seed: 1 })).rejects.toThrow(
      `sharegpt: cannot get ${SHAREGPT_HUB_FILE} of ${SHAREGPT_HUB_REPO} (pass --dataset-path with a local copy): ` +
        `HF_HUB_OFFLINE is set and ${SHAREGPT_HUB_FILE} is not cached for dataset ${SHAREGPT_HUB_REPO} (revision main). ` +
        `Download it first without HF_HUB_OFFLINE (or with \`hf download ${SHAREGPT_HUB_REPO} ${SHAREGPT_HUB_FILE} --repo-type dataset\`); ` +
        `it is cached at ${join(dir, 'snapshots', '<commit>', SHAREGPT_HUB_FILE)}`,
    )
  })
})
