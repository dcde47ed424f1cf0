import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mp3File } from '../../../test/audio-fixtures.ts'
import { loadTokenizer, type Tokenizer } from '../../tokenizer/index.ts'
import type { CustomAudioDatasetConfig } from './custom-audio.ts'
import { generateCustomAudio } from './custom-audio.ts'

const DATA = resolve(import.meta.dirname, '../../../fixtures/datasets/custom-audio/data.jsonl')

let tokenizer: Tokenizer
let dir: string
beforeAll(async () => {
  tokenizer = await loadTokenizer({ id: 'cl100k_base' })
  dir = await mkdtemp(join(tmpdir(), 'servebench-custom-audio-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const config = (extra: Partial<CustomAudioDatasetConfig> = {}): CustomAudioDatasetConfig => ({
  kind: 'custom_audio',
  path: DATA,
  outputLen: -1,
  skipChatTemplate: false,
  disableShuffle: true,
  noOversample: false,
  ...extra,
})
const context = () => ({ tokenizer, numPrompts: 3, seed: 0, backend: 'openai-audio' as const })

describe('custom_audio', () => {
  it('reads each line: prompt length, output_tokens, and the audio file next to the JSONL', async () => {
    const requests = await generateCustomAudio(config(), context())
    expect(
      requests.map((r) => [r.prompt, r.expectedOutputLen, r.audio!.fileName, r.audio!.durationS]),
    ).toEqual([
      ['Transcribe the audio.', 12, 'audio.wav', 1],
      ['Transcribe this clip, please.', 7, 'audio.wav', 0.5],
      ['', 30, 'audio.flac', 2],
    ])
    for (const r of requests) {
      expect(r.promptLen).toBe((await tokenizer.encode(r.prompt, { addSpecialTokens: true })).length)
    }
    expect(requests[2]!.audio!.contentType).toBe('audio/flac')
  })

  it('takes --custom-output-len over output_tokens, shuffles with the seed and oversamples', async () => {
    const a = await generateCustomAudio(config({ outputLen: 5, disableShuffle: false }), {
      ...context(),
      numPrompts: 7,
    })
    const b = await generateCustomAudio(config({ outputLen: 5, disableShuffle: false }), {
      ...context(),
      numPrompts: 7,
    })
    expect(a).toHaveLength(7)
    expect(a.every((r) => r.expectedOutputLen === 5)).toBe(true)
    expect(a.map((r) => r.audio!.durationS)).toEqual(b.map((r) => r.audio!.durationS))
    expect(new Set(a.map((r) => r.audio!.durationS))).toEqual(new Set([1, 0.5, 2]))
    const kept = await generateCustomAudio(config({ noOversample: true }), { ...context(), numPrompts: 7 })
    expect(kept).toHaveLength(3)
  })

  it('names the line and field of a bad audio entry', async () => {
    const cases: Array<[string, string]> = [
      ['{"prompt": "x"}', 'field "audio" is missing (a WAV, FLAC or MP3 file path)'],
      ['{"audio": 3, "output_tokens": 2}', 'field "audio" must be a file path (got 3)'],
      ['{"audio": "a.wav", "prompt": 1}', 'field "prompt" must be a string (got number)'],
      ['{"audio": "a.wav"}', 'field "output_tokens" is missing (needed by --custom-output-len -1)'],
      [
        '{"audio": "nope.wav", "output_tokens": 2}',
        `field "audio" names nope.wav, which cannot be read (looked in the current directory and next to ${join(dir, 'bad.jsonl')})`,
      ],
      [
        '{"audio": "clip.ogg", "output_tokens": 2}',
        'field "audio" names clip.ogg: Ogg audio; servebench reads the duration of WAV, FLAC and MP3 only',
      ],
    ]
    await writeFile(join(dir, 'clip.ogg'), Buffer.from('OggS\0\x02 more bytes', 'latin1'))
    const file = join(dir, 'bad.jsonl')
    for (const [line, message] of cases) {
      await writeFile(file, `\n${line}\n`)
      await expect(generateCustomAudio(config({ path: file }), context())).rejects.toThrow(
        `custom_audio: ${file}:2: ${message}`,
      )
    }
    await expect(generateCustomAudio(config({ path: join(dir, 'data.json') }), context())).rejects.toThrow(
      `custom_audio: --dataset-path must be a .jsonl file (got ${join(dir, 'data.json')})`,
    )
  })

  it('reads MP3 files, sent as audio.mp3 / audio/mpeg', async () => {
    await writeFile(join(dir, 'clip.mp3'), mp3File({ frames: 125 }))
    const file = join(dir, 'mp3.jsonl')
    await writeFile(file, '{"prompt": "p", "audio": "clip.mp3", "output_tokens": 3}\n')
    const [request] = await generateCustomAudio(config({ path: file }), { ...context(), numPrompts: 1 })
    expect(request!.audio).toMatchObject({ fileName: 'audio.mp3', contentType: 'audio/mpeg', durationS: 3 })
  })

  it('openai-chat (Python --enable-multimodal-chat): the raw prompt, counted raw, and the audio for an input_audio part', async () => {
    // A tokenizer with a chat template: the transcription path renders with it, the chat path does not.
    const templated = {
      ...tokenizer,
      chatTemplate: '{% for m in messages %}[{{ m.content }}]{% endfor %}',
      encode: tokenizer.encode.bind(tokenizer),
    } as Tokenizer
    const audio = await generateCustomAudio(config(), { ...context(), tokenizer: templated })
    expect(audio[0]!.prompt).toBe('[Transcribe the audio.]')
    const chat = await generateCustomAudio(config(), {
      ...context(),
      tokenizer: templated,
      backend: 'openai-chat',
    })
    expect(chat.map((r) => [r.prompt, r.expectedOutputLen, r.audio!.fileName])).toEqual([
      ['Transcribe the audio.', 12, 'audio.wav'],
      ['Transcribe this clip, please.', 7, 'audio.wav'],
      ['', 30, 'audio.flac'],
    ])
    for (const r of chat) {
      expect(r.promptLen).toBe((await tokenizer.encode(r.prompt, { addSpecialTokens: true })).length)
      expect(r.multiModalContent).toBeUndefined()
    }
  })
})
