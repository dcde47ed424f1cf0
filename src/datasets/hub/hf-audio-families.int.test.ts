import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { flacFile, mp3File, wavFile } from '../../../test/audio-fixtures.ts'
import { datasetRepo, type FakeHub, startFakeHub, stubHubEnv } from '../../../test/fake-hub.ts'
import { writeParquet } from '../../../test/parquet-writer.ts'
import { loadTokenizer, type Tokenizer } from '../../tokenizer/index.ts'
import type { HfDatasetConfig } from './hf.ts'
import { generateHf } from './hf.ts'
import {
  ASR_DATASET_IDS,
  ASR_DEFAULT_OUTPUT_LEN,
  asrPrompt,
  EARNINGS22_CLEANED_ID,
} from './hf-audio-families.ts'

const LIBRISPEECH = 'openslr/librispeech_asr'
const AUDIO = { struct: { bytes: 'binary', path: 'string' } } as const
// Twelve rows of 1.0 .. 6.5 s of FLAC (16 kHz) or WAV (8 kHz), alternating.
const DURATIONS = Array.from({ length: 12 }, (_, i) => 1 + i / 2)
const audioOf = (durationS: number, i: number): Buffer =>
  i % 2 === 0 ? flacFile(16_000, durationS * 16_000) : wavFile(durationS * 8000, 8000)

let tokenizer: Tokenizer
beforeAll(async () => {
  tokenizer = await loadTokenizer({ id: 'cl100k_base' })
})

describe('asrPrompt', () => {
  it("is Whisper's control tokens for an openai tokenizer, Cohere's for cohere, else empty", () => {
    expect(asrPrompt('openai/whisper-large-v3')).toBe(
      '<|startoftranscript|><|en|><|transcribe|><|notimestamps|>',
    )
    expect(asrPrompt('CohereLabs/cohere-transcribe')).toMatch(/^<\|startofcontext\|><\|startoftranscript\|>/)
    expect(asrPrompt('Qwen/Qwen3-0.6B')).toBe('')
    expect(ASR_DATASET_IDS).toHaveLength(8)
    expect(ASR_DATASET_IDS).toContain('ArtificialAnalysis/Earnings22-Cleaned-AA')
    expect(ASR_DEFAULT_OUTPUT_LEN).toBe(1024)
  })
})

describe('hf ASR families from the hub', () => {
  let home: string
  let hub: FakeHub
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servebench-asr-'))
    const rows = DURATIONS.map((d, i) => ({
      audio: { bytes: audioOf(d, i), path: `${i}.${i % 2 === 0 ? 'flac' : 'wav'}` },
      text: `TRANSCRIPT ${i}`,
    }))
    hub = await startFakeHub({
      repos: [
        {
          type: 'dataset',
          id: LIBRISPEECH,
          commit: 'a'.repeat(40),
          files: { 'README.md': '# librispeech' },
          parquetCommit: 'b'.repeat(40),
          parquetExport: { 'clean/test/0000.parquet': writeParquet(rows, { audio: AUDIO, text: 'string' }) },
        },
      ],
    })
    stubHubEnv(hub, home)
  })
  afterEach(async () => {
    vi.unstubAllEnvs()
    await hub.close()
    await rm(home, { recursive: true, force: true })
  })

  const config = (extra: Partial<HfDatasetConfig> = {}): HfDatasetConfig => ({
    kind: 'hf',
    path: LIBRISPEECH,
    disableShuffle: false,
    noOversample: false,
    ...extra,
  })
  const context = {
    tokenizer: undefined as unknown as Tokenizer,
    numPrompts: 5,
    seed: 0,
    backend: 'openai-audio' as const,
  }

  it('sends each row audio bytes with its duration, the default output length and an empty prompt', async () => {
    const requests = await generateHf(config(), { ...context, tokenizer })
    expect(requests).toHaveLength(5)
    for (const r of requests) {
      expect(r.prompt).toBe('')
      expect(r.promptLen).toBe(0)
      expect(r.expectedOutputLen).toBe(1024)
      expect(DURATIONS).toContain(r.audio!.durationS)
      const flac = r.audio!.fileName === 'audio.flac'
      expect(r.audio!.contentType).toBe(flac ? 'audio/flac' : 'audio/wav')
      expect(Buffer.from(r.audio!.bytes).toString('latin1', 0, 4)).toBe(flac ? 'fLaC' : 'RIFF')
    }
    const again = await generateHf(config(), { ...context, tokenizer })
    expect(again.map((r) => r.audio!.durationS)).toEqual(requests.map((r) => r.audio!.durationS))
    const other = await generateHf(config(), { ...context, tokenizer, seed: 7 })
    expect(other.map((r) => r.audio!.durationS)).not.toEqual(requests.map((r) => r.audio!.durationS))
  })

  it('keeps the file order with disableShuffle and applies --hf-output-len', async () => {
    const requests = await generateHf(config({ disableShuffle: true, outputLen: 64 }), {
      ...context,
      tokenizer,
    })
    expect(requests.map((r) => r.audio!.durationS)).toEqual(DURATIONS.slice(0, 5))
    expect(requests.every((r) => r.expectedOutputLen === 64)).toBe(true)
  })

  it('keeps only rows inside the audio-length range, warning with the count skipped', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const requests = await generateHf(config({ disableShuffle: true, asrAudioLenS: { min: 2, max: 3 } }), {
      ...context,
      tokenizer,
      numPrompts: 10,
    })
    // 2, 2.5 and 3 s qualify (bounds inclusive, as Python's `<` / `>`); oversampled to 10.
    expect(new Set(requests.map((r) => r.audio!.durationS))).toEqual(new Set([2, 2.5, 3]))
    expect(requests).toHaveLength(10)
    expect(warn).toHaveBeenCalledWith(
      'servebench: hf: openslr/librispeech_asr: 9 rows skipped, their audio is shorter than 2 s or longer than 3 s (--asr-min-audio-len-sec, --asr-max-audio-len-sec)',
    )
    warn.mockRestore()
  })

  it('fails with a clear error when no row fits the range, or for the wrong backend', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    await expect(
      generateHf(config({ asrAudioLenS: { min: 100, max: Infinity } }), { ...context, tokenizer }),
    ).rejects.toThrow(
      'hf: openslr/librispeech_asr: none of the 12 rows read has audio between 100 s and Infinity s (--asr-min-audio-len-sec, --asr-max-audio-len-sec)',
    )
    await expect(generateHf(config(), { ...context, tokenizer, backend: 'openai-chat' })).rejects.toThrow(
      'hf: openslr/librispeech_asr is an ASR dataset: it needs --backend openai-audio, which sends its audio for transcription (got openai-chat; audio goes to openai-chat through custom_audio with --enable-multimodal-chat)',
    )
    vi.restoreAllMocks()
  })

  it('counts the Whisper prompt for an openai tokenizer id', async () => {
    const whisper = { ...tokenizer, id: 'openai/whisper-small', encode: tokenizer.encode.bind(tokenizer) }
    const requests = await generateHf(config(), {
      ...context,
      tokenizer: whisper as Tokenizer,
      numPrompts: 1,
    })
    expect(requests[0]!.prompt).toBe(asrPrompt('openai/whisper-small'))
    expect(requests[0]!.promptLen).toBe(
      (await tokenizer.encode(requests[0]!.prompt, { addSpecialTokens: true })).length,
    )
  })
})

describe('hf ASR families from local files', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servebench-asr-local-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('reads audio named by a path (a string, or {bytes: null, path}) and names a bad row', async () => {
    await writeFile(join(dir, 'a.wav'), wavFile(16_000, 16_000))
    await writeFile(join(dir, 'b.flac'), flacFile(16_000, 32_000))
    await writeFile(join(dir, 'c.mp3'), Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.alloc(40)]))
    await writeFile(join(dir, 'd.mp3'), mp3File({ frames: 125, id3Bytes: 64 }))
    const rows = [
      { audio: join(dir, 'a.wav'), text: 'a' },
      { audio: { bytes: null, path: join(dir, 'b.flac') }, text: 'b' },
      { audio: join(dir, 'd.mp3'), text: 'd' },
    ]
    const file = join(dir, 'train.jsonl')
    await writeFile(file, rows.map((r) => JSON.stringify(r)).join('\n'))
    const base: HfDatasetConfig = {
      kind: 'hf',
      path: file,
      hfName: 'LIUM/tedlium',
      disableShuffle: true,
      noOversample: true,
    }
    const ctx = { tokenizer, numPrompts: 3, seed: 0, backend: 'openai-audio' as const }
    const requests = await generateHf(base, ctx)
    expect(requests.map((r) => [r.audio!.fileName, r.audio!.contentType, r.audio!.durationS])).toEqual([
      ['audio.wav', 'audio/wav', 1],
      ['audio.flac', 'audio/flac', 2],
      ['audio.mp3', 'audio/mpeg', 3],
    ])

    await writeFile(file, `${JSON.stringify({ audio: join(dir, 'c.mp3') })}\n`)
    await expect(generateHf(base, ctx)).rejects.toThrow(
      'hf: LIUM/tedlium: row 1: MP3 audio with no MPEG audio frame',
    )
    await writeFile(file, `${JSON.stringify({ audio: join(dir, 'missing.wav') })}\n`)
    await expect(generateHf(base, ctx)).rejects.toThrow(
      `hf: LIUM/tedlium: row 1: the audio file ${join(dir, 'missing.wav')} does not exist (rows without audio bytes name a local file)`,
    )
    await writeFile(file, `${JSON.stringify({ text: 'no audio' })}\n`)
    await expect(generateHf(base, ctx)).rejects.toThrow(
      'hf: LIUM/tedlium: row 1: the audio column must hold {bytes, path} with the audio bytes, or a local audio file path (got no audio column)',
    )
  })

  it("reads Earnings22-Cleaned-AA's MP3 files named by url next to a local dataset, naming a bad row", async () => {
    await mkdir(join(dir, 'audio'))
    await writeFile(join(dir, 'audio/a.mp3'), mp3File({ frames: 50 }))
    await writeFile(join(dir, 'audio/b.mp3'), mp3File({ frames: 3, vbrTag: { kind: 'Xing', frames: 500 } }))
    const file = join(dir, 'earnings22_cleaned_aa_v1.jsonl')
    const lines = [
      { id: 'a', url: 'audio/a.mp3', transcript: 'first' },
      { id: 'b', url: 'audio/b.mp3', transcript: 'second' },
    ]
    await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n'))
    const config: HfDatasetConfig = {
      kind: 'hf',
      path: dir,
      hfName: EARNINGS22_CLEANED_ID,
      disableShuffle: true,
      noOversample: true,
    }
    const ctx = { tokenizer, numPrompts: 2, seed: 0, backend: 'openai-audio' as const }
    const requests = await generateHf(config, ctx)
    expect(requests.map((r) => [r.audio!.fileName, r.audio!.contentType, r.audio!.durationS])).toEqual([
      ['audio.mp3', 'audio/mpeg', 1.2],
      ['audio.mp3', 'audio/mpeg', 12],
    ])
    expect(requests[0]!.expectedOutputLen).toBe(1024)

    await writeFile(file, '{"id": "x", "transcript": "t"}\n')
    await expect(generateHf(config, ctx)).rejects.toThrow(
      "hf: ArtificialAnalysis/Earnings22-Cleaned-AA: row 1: the url column must name the row's audio file in the repository (got no url column)",
    )
    await writeFile(file, '{"url": "audio/missing.mp3"}\n')
    await expect(generateHf(config, ctx)).rejects.toThrow(
      `hf: ArtificialAnalysis/Earnings22-Cleaned-AA: row 1: the audio file ${join(dir, 'audio/missing.mp3')} does not exist (rows without audio bytes name a local file)`,
    )
  })
})

describe('hf Earnings22-Cleaned-AA from the hub', () => {
  let home: string
  let hub: FakeHub
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servebench-e22-'))
    // Rows name MP3 files of the repository (url), as the parquet export of its JSONL does.
    const rows = Array.from({ length: 6 }, (_, i) => ({
      id: `c${i}`,
      url: `audio/c${i}.mp3`,
      transcript: `T ${i}`,
    }))
    const files: Record<string, Buffer | string> = { 'README.md': '# earnings22' }
    for (let i = 0; i < 6; i++) files[`audio/c${i}.mp3`] = mp3File({ frames: 25 * (i + 1) }) // 0.6 s per 25 frames
    hub = await startFakeHub({
      repos: [
        datasetRepo(EARNINGS22_CLEANED_ID, {
          files,
          parquetCommit: 'd'.repeat(40),
          parquetExport: {
            'default/test/0000.parquet': writeParquet(rows, {
              id: 'string',
              url: 'string',
              transcript: 'string',
            }),
          },
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

  const config: HfDatasetConfig = {
    kind: 'hf',
    path: EARNINGS22_CLEANED_ID,
    split: 'test',
    disableShuffle: false,
    noOversample: false,
  }

  it('downloads the MP3 each row names and times it from its frames, seeded', async () => {
    const context = { tokenizer, numPrompts: 4, seed: 0, backend: 'openai-audio' as const }
    const requests = await generateHf(config, context)
    expect(requests).toHaveLength(4)
    for (const r of requests) {
      expect(r.audio).toMatchObject({ fileName: 'audio.mp3', contentType: 'audio/mpeg' })
      expect([0.6, 1.2, 1.8, 2.4, 3, 3.6]).toContain(r.audio!.durationS)
      expect(Buffer.from(r.audio!.bytes).readUInt16BE(0)).toBe(0xfffb)
      expect(r.expectedOutputLen).toBe(1024)
    }
    // Only the files of the rows read are downloaded, from the repository's main revision.
    expect(hub.requests.filter((r) => r.includes('/resolve/main/audio/'))).toHaveLength(4)
    const again = await generateHf(config, context)
    expect(again.map((r) => r.audio!.durationS)).toEqual(requests.map((r) => r.audio!.durationS))
    const other = await generateHf(config, { ...context, seed: 3 })
    expect(other.map((r) => r.audio!.durationS)).not.toEqual(requests.map((r) => r.audio!.durationS))
  })

  it('names the file the hub does not have', async () => {
    await hub.close()
    hub = await startFakeHub({
      repos: [
        datasetRepo(EARNINGS22_CLEANED_ID, {
          files: { 'README.md': '#' },
          parquetCommit: 'd'.repeat(40),
          parquetExport: {
            'default/test/0000.parquet': writeParquet([{ url: 'audio/gone.mp3' }], { url: 'string' }),
          },
        }),
      ],
    })
    vi.stubEnv('HF_ENDPOINT', hub.endpoint)
    vi.stubEnv('SERVEBENCH_HF_DATASETS_SERVER', hub.datasetsServer)
    await expect(
      generateHf(config, { tokenizer, numPrompts: 1, seed: 0, backend: 'openai-audio' }),
    ).rejects.toThrow(/^hf: cannot get audio\/gone\.mp3 of ArtificialAnalysis\/Earnings22-Cleaned-AA: /)
  })
})
