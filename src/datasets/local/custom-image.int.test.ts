import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadTokenizer, type Tokenizer } from '../../tokenizer/index.ts'
import type { CustomImageDatasetConfig } from './custom-image.ts'
import { generateCustomImage } from './custom-image.ts'

const DIR = resolve(import.meta.dirname, '../../../fixtures/datasets/custom-image')
const FIXTURE = join(DIR, 'images.jsonl')
const RED = join(DIR, 'red.png')
const GREEN = join(DIR, 'green.png')

const config = (overrides: Partial<CustomImageDatasetConfig> = {}): CustomImageDatasetConfig => ({
  kind: 'custom_image',
  path: FIXTURE,
  outputLen: 32,
  ensureClientSideData: false,
  enableMultimodalChat: false,
  disableShuffle: true,
  noOversample: true,
  ...overrides,
})

let tokenizer: Tokenizer
let tmp: string
let server: Server
let serverUrl: string
beforeAll(async () => {
  tokenizer = await loadTokenizer({ id: 'cl100k_base' })
  tmp = await mkdtemp(join(tmpdir(), 'servebench-custom-image-'))
  const red = await readFile(RED)
  server = createServer((req, res) => {
    if (req.url === '/red.png') res.writeHead(200, { 'content-type': 'image/png' }).end(red)
    else if (req.url === '/moved.png') res.writeHead(302, { location: '/red.png' }).end()
    else res.writeHead(404).end('missing')
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((done) => server.close(done))
  await rm(tmp, { recursive: true, force: true })
})

async function jsonl(rows: unknown[], name = 'rows.jsonl'): Promise<string> {
  const path = join(tmp, name)
  await writeFile(path, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`)
  return path
}

const pngDataUrl = async (path: string) =>
  `data:image/png;base64,${(await readFile(path)).toString('base64')}`

describe('custom_image', () => {
  it('sends the images of image_files after the text, by file:// URL, relative paths resolved against the file', async () => {
    const requests = await generateCustomImage(config(), { tokenizer, numPrompts: 3, seed: 0 })
    expect(requests).toHaveLength(3)
    const [first, second] = requests
    expect(first).toEqual({
      prompt: 'How many red pixels are in these images?',
      promptLen: (
        await tokenizer.encode('How many red pixels are in these images?', { addSpecialTokens: true })
      ).length,
      expectedOutputLen: 32,
      multiModalContent: [
        { type: 'image_url', image_url: { url: `file://${RED}` } },
        { type: 'image_url', image_url: { url: `file://${GREEN}` } },
      ],
    })
    expect(second!.multiModalContent).toEqual([{ type: 'image_url', image_url: { url: `file://${GREEN}` } }])
  })

  it('keeps interleaved content parts in order as one user message, with extra image_url keys', async () => {
    const [, , third] = await generateCustomImage(config(), { tokenizer, numPrompts: 3, seed: 0 })
    expect(third!.prompt).toBe('Compare  with ')
    expect(third!.promptLen).toBe(
      (await tokenizer.encode('Compare  with ', { addSpecialTokens: true })).length,
    )
    expect(third!.multiModalContent).toBeUndefined()
    expect(third!.chatMessages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare ' },
          { type: 'image_url', image_url: { url: `file://${RED}` } },
          { type: 'text', text: ' with ' },
          { type: 'image_url', image_url: { url: `file://${GREEN}`, detail: 'low' } },
        ],
      },
    ])
  })

  it('with ensureClientSideData, loads local files, file:// URIs and http(s) images as base64 data URLs', async () => {
    const spaced = join(tmp, 'chart b.png')
    await writeFile(spaced, await readFile(GREEN))
    const dataUrl = 'data:image/png;base64,Zm9v'
    const path = await jsonl([
      {
        prompt: 'Compare the charts.',
        image_files: [RED, pathToFileURL(spaced).href, `${serverUrl}/moved.png`, dataUrl],
      },
      { content: [{ type: 'image_url', image_url: { url: `${serverUrl}/red.png`, detail: 'high' } }] },
    ])
    const [a, b] = await generateCustomImage(config({ path, ensureClientSideData: true }), {
      tokenizer,
      numPrompts: 2,
      seed: 0,
    })
    expect(a!.multiModalContent!.map((p) => p.type === 'image_url' && p.image_url.url)).toEqual([
      await pngDataUrl(RED),
      await pngDataUrl(GREEN),
      await pngDataUrl(RED),
      dataUrl,
    ])
    expect(b!.chatMessages![0]!.content).toEqual([
      { type: 'image_url', image_url: { url: await pngDataUrl(RED), detail: 'high' } },
    ])
  })

  it('names the line and the image it cannot load', async () => {
    const notImage = join(tmp, 'not_an_image.png')
    await writeFile(notImage, 'not an image')
    const bad = await jsonl([{ prompt: 'Describe.', image_files: [notImage] }], 'bad.jsonl')
    const generate = (path: string) =>
      generateCustomImage(config({ path, ensureClientSideData: true }), { tokenizer, numPrompts: 1, seed: 0 })
    await expect(generate(bad)).rejects.toThrow(
      `custom_image: ${bad}:1: cannot load image file://${notImage}: not a JPEG, PNG, GIF, WebP, BMP or TIFF image`,
    )
    const missing = await jsonl([{ prompt: 'Describe.', image_files: ['nowhere.png'] }], 'missing.jsonl')
    await expect(generate(missing)).rejects.toThrow(
      `custom_image: ${missing}:1: cannot load image file://${join(tmp, 'nowhere.png')}: no such file: ${join(tmp, 'nowhere.png')}`,
    )
    const gone = await jsonl([{ content: [{ type: 'image', image: `${serverUrl}/gone.png` }] }], 'gone.jsonl')
    await expect(generate(gone)).rejects.toThrow(
      `custom_image: ${gone}:1: cannot load image ${serverUrl}/gone.png: the server answered HTTP 404`,
    )
    // Without client-side data nothing is loaded: the reference is sent as it is.
    const [sent] = await generateCustomImage(config({ path: missing }), { tokenizer, numPrompts: 1, seed: 0 })
    expect(sent!.multiModalContent).toEqual([
      { type: 'image_url', image_url: { url: `file://${join(tmp, 'nowhere.png')}` } },
    ])
  })

  it('is reproducible for a seed, keeps order with disableShuffle, and oversamples unless noOversample', async () => {
    const run = (seed: number, overrides: Partial<CustomImageDatasetConfig> = {}) =>
      generateCustomImage(config({ disableShuffle: false, noOversample: false, ...overrides }), {
        tokenizer,
        numPrompts: 7,
        seed,
      })
    const a = await run(3)
    expect(a).toHaveLength(7)
    expect(await run(3)).toEqual(a)
    const orders = new Set<string>()
    for (let seed = 0; seed < 6; seed++) orders.add((await run(seed)).map((r) => r.prompt).join('|'))
    expect(orders.size).toBeGreaterThan(1)
    expect(await run(3, { noOversample: true })).toHaveLength(3)
  })

  it('counts every prompt as 1 token without a tokenizer (--skip-tokenizer-init)', async () => {
    const requests = await generateCustomImage(config(), { numPrompts: 3, seed: 0 })
    expect(requests.map((r) => r.promptLen)).toEqual([1, 1, 1])
  })

  it('rejects malformed lines with the file, line and field', async () => {
    const cases: Array<[unknown, string]> = [
      [
        { prompt: 'no images' },
        '2: each line needs "prompt" and "image_files", or "content" (interleaved text and image parts)',
      ],
      [{ prompt: 3, image_files: ['a.png'] }, '2: field "prompt" must be a string (got number)'],
      [
        { prompt: 'x', image_files: [] },
        '2: field "image_files" must be a non-empty list of image paths or URLs',
      ],
      [{ prompt: 'x', image_files: ['a.png', 7] }, '2: field "image_files[1]" must be a path or URL (got 7)'],
      [{ content: [] }, '2: field "content" must be a non-empty list of text and image parts'],
      [
        { content: [{ type: 'audio', audio: 'clip.wav' }] },
        '2: field "content[0].type" must be "text", "image" or "image_url" (got "audio")',
      ],
      [{ content: [{ type: 'text', text: 1 }] }, '2: field "content[0].text" must be a string (got number)'],
      [{ content: [{ type: 'image' }] }, '2: field "content[0].image" must be an image path or URL'],
      [
        { content: [{ type: 'image_url', image_url: { detail: 'low' } }] },
        '2: field "content[0].image_url" must be a URL string or an object with a string "url"',
      ],
      [{ content: ['text'] }, '2: field "content[0]" must be an object (got string)'],
    ]
    for (const [row, message] of cases) {
      const path = await jsonl([{ prompt: 'fine', image_files: ['a.png'] }, row], 'malformed.jsonl')
      await expect(
        generateCustomImage(config({ path }), { tokenizer, numPrompts: 2, seed: 0 }),
      ).rejects.toThrow(`custom_image: ${path}:${message}`)
    }
    await expect(
      generateCustomImage(config({ path: join(tmp, 'rows.json') }), { tokenizer, numPrompts: 1, seed: 0 }),
    ).rejects.toThrow(`custom_image: --dataset-path must be a .jsonl file (got ${join(tmp, 'rows.json')})`)
  })
})
