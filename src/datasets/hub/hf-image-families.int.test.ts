import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetReadObjects } from 'hyparquet'
import { encode as encodeJpeg } from 'jpeg-js'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { type FakeHub, type FakeRepo, startFakeHub, stubHubEnv } from '../../../test/fake-hub.ts'
import { IMAGE_TYPE, writeParquet } from '../../../test/parquet-writer.ts'
import { buildChatBody } from '../../backends/chat.ts'
import { loadTokenizer, type Tokenizer } from '../../tokenizer/index.ts'
import { sniffImageMime } from '../image-bytes.ts'
import type { HfDatasetConfig } from './hf.ts'
import { generateHf } from './hf.ts'
import { imagePart, mmvuPrompt, videoPart } from './hf-image-families.ts'

const COMMIT = 'f'.repeat(40)

function jpeg(shade: number): Uint8Array {
  const data = Buffer.alloc(4 * 4 * 4, shade)
  return new Uint8Array(encodeJpeg({ data, width: 4, height: 4 }, 90).data)
}
// A PNG signature is all the client reads: it sends the bytes as they are.
const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
])
const dataUrl = (mime: string, bytes: Uint8Array) =>
  `data:${mime};base64,${Buffer.from(bytes).toString('base64')}`

const message = (role: string, content: string) => ({ role, content })
const ARENA_ROWS = Array.from({ length: 6 }, (_, i) => ({
  conversation: [
    [
      message('user', `What is drawn in picture number ${i}, in one sentence?`),
      message('assistant', 'A square.'),
    ],
  ],
  images: [{ bytes: i % 2 ? PNG : jpeg(i * 40), path: `${i}.img` }],
}))
const BENCH_ROWS = [
  {
    turns: [[message('user', 'Which colour dominates this tiny image, in your view?')]],
    images: [{ bytes: jpeg(9), path: null }],
  },
]
const MMVU = (split: string) =>
  Array.from({ length: 3 }, (_, i) => ({
    id: `${split}-${i}`,
    video: `https://huggingface.co/datasets/yale-nlp/MMVU/resolve/main/videos/${split}-${i}.mp4`,
    question: `In the ${split} video ${i}, which instrument is played first?`,
    choices: i === 2 ? { A: null, B: null } : { A: 'piano', B: 'violin' },
  }))
const MMSTAR_ROWS = Array.from({ length: 4 }, (_, i) => ({
  index: String(i),
  question: `How many circles are in image ${i}?\nOptions: A: one, B: two, C: three`,
  image: { bytes: jpeg(200 - i), path: null },
  answer: 'B',
}))
// A LLaVA-OneVision row: its image (none for a text-only row), then the human and gpt turns.
const llavaRow = (id: string, image: Uint8Array | null, ...turns: string[]) => ({
  id,
  image: image ? { bytes: image, path: `${id}.jpg` } : null,
  conversations: turns.map((value, i) => ({ from: i % 2 ? 'gpt' : 'human', value })),
})
const LLAVA_ROWS = [
  llavaRow(
    'a',
    jpeg(1),
    '<image>\nWhat shape is shown in this figure here?',
    'It is a red square drawn with thin lines.',
  ),
  llavaRow(
    'b',
    null,
    'Tell me a short fact about the planet Mars please.',
    'Mars has the tallest volcano in the solar system.',
  ),
  llavaRow('c', jpeg(2), '<image>\nIs there any text in this image at all?', 'No.'),
  llavaRow('d', jpeg(3), 'Only one turn here.'),
]

const TURNS = { list: { list: { struct: { role: 'string', content: 'string' } } } } as const
function repo(id: string, shards: Record<string, Buffer>): FakeRepo {
  return { type: 'dataset', id, commit: COMMIT, files: {}, parquetExport: shards }
}

let tokenizer: Tokenizer
beforeAll(async () => {
  tokenizer = await loadTokenizer({ id: 'cl100k_base' })
})

describe('hf image and video families from the hub', () => {
  let home: string
  let hub: FakeHub
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servebench-hf-img-'))
    const mmvu = {
      question: 'string',
      video: 'string',
      id: 'string',
      choices: { struct: { A: 'string', B: 'string' } },
    } as const
    hub = await startFakeHub({
      repos: [
        repo('lmarena-ai/VisionArena-Chat', {
          'default/train/0000.parquet': writeParquet(ARENA_ROWS, {
            conversation: TURNS,
            images: { list: IMAGE_TYPE },
          }),
        }),
        repo('lmarena-ai/vision-arena-bench-v0.1', {
          'default/train/0000.parquet': writeParquet(BENCH_ROWS, {
            turns: TURNS,
            images: { list: IMAGE_TYPE },
          }),
        }),
        repo('yale-nlp/MMVU', {
          'default/test/0000.parquet': writeParquet(MMVU('test'), mmvu),
          'default/validation/0000.parquet': writeParquet(MMVU('validation'), mmvu),
        }),
        repo('Lin-Chen/MMStar', {
          'val/val/0000.parquet': writeParquet(MMSTAR_ROWS, {
            index: 'string',
            question: 'string',
            image: IMAGE_TYPE,
            answer: 'string',
          }),
        }),
        repo('lmms-lab/LLaVA-OneVision-Data', {
          'CLEVR/train/0000.parquet': writeParquet(LLAVA_ROWS, {
            id: 'string',
            image: IMAGE_TYPE,
            conversations: { list: { struct: { from: 'string', value: 'string' } } },
          }),
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

  const hf = (path: string, extra: Partial<HfDatasetConfig> = {}): HfDatasetConfig => ({
    kind: 'hf',
    path,
    disableShuffle: false,
    noOversample: true,
    ...extra,
  })
  const chat = (numPrompts: number, seed = 0) => ({
    tokenizer,
    numPrompts,
    seed,
    backend: 'openai-chat' as const,
  })

  it('VisionArena-Chat: the first user message and the first image as it is stored (JPEG or PNG), 128 tokens', async () => {
    const requests = await generateHf(hf('lmarena-ai/VisionArena-Chat'), chat(6))
    expect(requests).toHaveLength(6)
    for (const request of requests) {
      const i = Number(/number (\d)/.exec(request.prompt)![1])
      expect(request.prompt).toBe(ARENA_ROWS[i]!.conversation[0]![0]!.content)
      expect(request.promptLen).toBe((await tokenizer.encode(request.prompt)).length)
      expect(request.expectedOutputLen).toBe(128)
      const bytes = ARENA_ROWS[i]!.images[0]!.bytes
      const mime = i % 2 ? 'image/png' : 'image/jpeg'
      expect(request.multiModalContent).toEqual([
        { type: 'image_url', image_url: { url: dataUrl(mime, bytes) } },
      ])
    }
    const body = buildChatBody({
      ...requests[0]!,
      url: '',
      requestId: 'r',
      model: 'm',
      outputLen: 128,
      ignoreEos: false,
      extraBody: {},
      headers: {},
      multiModalContent: requests[0]!.multiModalContent!,
    })
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: requests[0]!.prompt }, ...requests[0]!.multiModalContent!],
      },
    ])
  })

  it('is reproducible for a seed and shuffles differently for another', async () => {
    const a = await generateHf(hf('lmarena-ai/VisionArena-Chat'), chat(4, 3))
    expect(await generateHf(hf('lmarena-ai/VisionArena-Chat'), chat(4, 3))).toEqual(a)
    const b = await generateHf(hf('lmarena-ai/VisionArena-Chat'), chat(4, 4))
    expect(b.map((r) => r.prompt)).not.toEqual(a.map((r) => r.prompt))
  })

  it('vision-arena-bench reads turns; --hf-output-len and oversampling apply', async () => {
    const requests = await generateHf(
      hf('lmarena-ai/vision-arena-bench-v0.1', { outputLen: 20, noOversample: false }),
      chat(3),
    )
    expect(requests).toHaveLength(3)
    expect(
      requests.every((r) => r.prompt === BENCH_ROWS[0]!.turns[0]![0]!.content && r.expectedOutputLen === 20),
    ).toBe(true)
    expect(requests[0]!.multiModalContent).toEqual([
      { type: 'image_url', image_url: { url: dataUrl('image/jpeg', BENCH_ROWS[0]!.images[0]!.bytes) } },
    ])
  })

  it('MMVU: Python default split validation, question plus choices, the video URL as a video_url part', async () => {
    const requests = await generateHf(hf('yale-nlp/MMVU', { disableShuffle: true }), chat(3))
    expect(requests.map((r) => r.prompt)).toEqual([
      'In the validation video 0, which instrument is played first? A.piano B.violin',
      'In the validation video 1, which instrument is played first? A.piano B.violin',
      'In the validation video 2, which instrument is played first? A.None B.None',
    ])
    expect(requests.map((r) => r.expectedOutputLen)).toEqual([128, 128, 128])
    expect(requests[1]!.multiModalContent).toEqual([
      { type: 'video_url', video_url: { url: MMVU('validation')[1]!.video } },
    ])
    const test = await generateHf(hf('yale-nlp/MMVU', { split: 'test', disableShuffle: true }), chat(1))
    expect(test[0]!.prompt).toMatch(/^In the test video 0/)
  })

  it('MMStar: split val, the question before "Options:", the image column', async () => {
    const requests = await generateHf(hf('Lin-Chen/MMStar', { disableShuffle: true }), chat(4))
    expect(requests.map((r) => r.prompt)).toEqual(
      MMSTAR_ROWS.map((_, i) => `How many circles are in image ${i}?`),
    )
    expect(requests.map((r) => r.expectedOutputLen)).toEqual([128, 128, 128, 128])
    expect(requests[2]!.multiModalContent).toEqual([
      { type: 'image_url', image_url: { url: dataUrl('image/jpeg', MMSTAR_ROWS[2]!.image.bytes) } },
    ])
  })

  it('LLaVA-OneVision: conversation turns, the reference length with the ShareGPT filter, no part for a null image', async () => {
    const requests = await generateHf(hf('lmms-lab/LLaVA-OneVision-Data', { disableShuffle: true }), chat(10))
    // Row c's answer is under 4 tokens, row d has one turn: both are skipped.
    expect(requests.map((r) => r.prompt)).toEqual([
      LLAVA_ROWS[0]!.conversations[0]!.value,
      LLAVA_ROWS[1]!.conversations[0]!.value,
    ])
    expect(requests[0]!.expectedOutputLen).toBe(
      (await tokenizer.encode(LLAVA_ROWS[0]!.conversations[1]!.value)).length,
    )
    expect(requests[0]!.multiModalContent).toEqual([
      { type: 'image_url', image_url: { url: dataUrl('image/jpeg', LLAVA_ROWS[0]!.image!.bytes) } },
    ])
    expect('multiModalContent' in requests[1]!).toBe(false)
  })

  it('needs --backend openai-chat, before anything is downloaded', async () => {
    await expect(generateHf(hf('Lin-Chen/MMStar'), { tokenizer, numPrompts: 1, seed: 0 })).rejects.toThrow(
      "hf: Lin-Chen/MMStar sends images in chat messages, so it needs --backend openai-chat (endpoint({ backend: 'openai-chat' }) in the DSL); got vllm",
    )
    await expect(
      generateHf(hf('local.parquet', { hfName: 'yale-nlp/MMVU' }), {
        tokenizer,
        numPrompts: 1,
        seed: 0,
        backend: 'openai',
      }),
    ).rejects.toThrow(
      "hf: yale-nlp/MMVU sends a video in chat messages, so it needs --backend openai-chat (endpoint({ backend: 'openai-chat' }) in the DSL); got openai",
    )
    expect(hub.requests).toEqual([])
  })
})

describe('image and video parts', () => {
  it('follow Python process_image / process_video for strings: URLs as they are, paths as file://', () => {
    expect(imagePart('https://x.org/a.png', 'w')).toEqual({
      type: 'image_url',
      image_url: { url: 'https://x.org/a.png' },
    })
    expect(imagePart('pics/a.png', 'w')).toEqual({
      type: 'image_url',
      image_url: { url: 'file://pics/a.png' },
    })
    expect(imagePart({ bytes: null, path: 'http://x.org/b.jpg' }, 'w')).toEqual({
      type: 'image_url',
      image_url: { url: 'http://x.org/b.jpg' },
    })
    expect(videoPart({ bytes: new Uint8Array([0, 0, 0, 24]) }, 'w')).toEqual({
      type: 'video_url',
      video_url: { url: 'data:video/mp4;base64,AAAAGA==' },
    })
    expect(videoPart('/data/v.mp4', 'w')).toEqual({
      type: 'video_url',
      video_url: { url: 'file:///data/v.mp4' },
    })
  })

  it('reads the image type from the bytes, and names what is wrong', () => {
    expect(sniffImageMime(jpeg(5))).toBe('image/jpeg')
    expect(sniffImageMime(PNG)).toBe('image/png')
    expect(sniffImageMime(new TextEncoder().encode('GIF89a...'))).toBe('image/gif')
    expect(sniffImageMime(new TextEncoder().encode('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp')
    expect(() =>
      imagePart({ bytes: new TextEncoder().encode('hello world'), path: null }, 'hf: org/x: image'),
    ).toThrow(
      'hf: org/x: image: the bytes are not a JPEG, PNG, GIF, WebP, BMP or TIFF image (they start with 68 65 6c 6c 6f 20 77 6f)',
    )
    expect(() => imagePart(42, 'hf: org/x: image')).toThrow(
      'hf: org/x: image: expected an image ({bytes, path}, a path or a URL), got 42',
    )
    expect(() => videoPart(undefined, 'hf: yale-nlp/MMVU: video')).toThrow(
      'hf: yale-nlp/MMVU: video: expected a video ({bytes}, a path or a URL), got nothing',
    )
  })

  it("MMVU's prompt writes a null choice as None and no choices as nothing", () => {
    expect(mmvuPrompt({ question: 'Q?', choices: { A: 'x', B: null } })).toBe('Q? A.x B.None')
    expect(mmvuPrompt({ question: 'Q?', choices: null })).toBe('Q? ')
  })
})

describe('test/parquet-writer', () => {
  it('writes binary, struct and nested list columns that hyparquet reads back like an HF export', async () => {
    const rows = [
      {
        image: { bytes: new Uint8Array([0xff, 0xd8, 1]), path: 'a.jpg' },
        tags: [],
        turns: [[message('user', 'hi')], []],
      },
      { image: null, tags: ['x', 'y'], turns: null },
    ]
    const buffer = writeParquet(rows, { image: IMAGE_TYPE, tags: { list: 'string' }, turns: TURNS })
    const file = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer
    expect(await parquetReadObjects({ file, utf8: false })).toEqual(rows)
    const flat = writeParquet([{ a: 'x', b: 'y' }])
    const flatFile = flat.buffer.slice(flat.byteOffset, flat.byteOffset + flat.byteLength) as ArrayBuffer
    expect(await parquetReadObjects({ file: flatFile })).toEqual([{ a: 'x', b: 'y' }])
  })
})
