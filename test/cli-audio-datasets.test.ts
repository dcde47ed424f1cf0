import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { mp3File, wavFile } from './audio-fixtures.ts'
import { ROOT, readOnlyResult, runCli, test } from './helpers.ts'

const CLIPS = join(ROOT, 'fixtures/datasets/custom-audio')
const common = (url: string, dir: string) => [
  'serve',
  '--base-url',
  url,
  '--backend',
  'openai-audio',
  '--model',
  'openai/whisper-small',
  '--tokenizer',
  'cl100k_base',
  '--disable-tqdm',
  '--save-result',
  '--save-detailed',
  '--result-dir',
  dir,
]

describe('servebench serve with the audio datasets', () => {
  test('custom_audio sends each line audio file and sums its seconds into rtfx', async ({ sim, tmpDir }) => {
    const data = join(tmpDir, 'audio.jsonl')
    const lines = [
      { prompt: 'Transcribe.', audio: join(CLIPS, 'one-second.wav'), output_tokens: 6 },
      { prompt: 'Transcribe.', audio: join(CLIPS, 'half-second.wav'), output_tokens: 4 },
      { prompt: 'Transcribe.', audio: join(CLIPS, 'two-seconds.flac'), output_tokens: 5 },
    ]
    await writeFile(data, lines.map((l) => JSON.stringify(l)).join('\n'))
    const out = join(tmpDir, 'out')
    const run = await runCli([
      ...common(sim.url, out),
      '--dataset-name',
      'custom_audio',
      '--dataset-path',
      data,
      '--custom-output-len',
      '-1',
      '--num-prompts',
      '4',
      '--disable-shuffle',
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    const result = await readOnlyResult(out)
    expect(result.completed).toBe(4)
    expect(result.failed).toBe(0)
    // The simulator prefills 50 tokens per second of audio: the prompt lengths come from the WAV
    // and FLAC headers.
    expect(new Set(result.input_lens as number[])).toEqual(new Set([50, 25, 100]))
    expect((result.output_lens as number[]).slice(0, 3)).toEqual([6, 4, 5])
    expect(result.rtfx as number).toBeGreaterThan(0)
  })

  test('an hf ASR family from a local file, with the audio-length range', async ({ sim, tmpDir }) => {
    const rows = [0.5, 1, 2, 4].map((durationS, i) => ({ id: i, durationS }))
    for (const { id, durationS } of rows)
      await writeFile(join(tmpDir, `${id}.wav`), wavFile(durationS * 16_000, 16_000))
    const data = join(tmpDir, 'train.jsonl')
    await writeFile(
      data,
      rows
        .map(({ id }) =>
          JSON.stringify({ audio: { bytes: null, path: join(tmpDir, `${id}.wav`) }, text: 'x' }),
        )
        .join('\n'),
    )
    const out = join(tmpDir, 'out')
    const run = await runCli([
      ...common(sim.url, out),
      '--dataset-name',
      'hf',
      '--dataset-path',
      data,
      '--hf-name',
      'openslr/librispeech_asr',
      '--hf-output-len',
      '8',
      '--asr-min-audio-len-sec',
      '1',
      '--asr-max-audio-len-sec',
      '2',
      '--num-prompts',
      '6',
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('2 rows skipped')
    const result = await readOnlyResult(out)
    expect(result.completed).toBe(6)
    expect(new Set(result.input_lens as number[])).toEqual(new Set([50, 100]))
    expect(result.output_lens).toEqual(Array(6).fill(8))
  })

  test('an ASR dataset on a chat backend is a usage error naming the backend', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--tokenizer',
      'cl100k_base',
      '--backend',
      'openai-chat',
      '--dataset-name',
      'hf',
      '--dataset-path',
      'openslr/librispeech_asr',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      "--backend must be openai-audio for the ASR dataset openslr/librispeech_asr (it sends each row's audio for transcription; Python has no chat path for it); got openai-chat",
    )
  })

  test('custom_audio to openai-chat with --enable-multimodal-chat: input_audio parts, the text counted', async ({
    sim,
    tmpDir,
  }) => {
    const data = join(tmpDir, 'audio.jsonl')
    await writeFile(join(tmpDir, 'clip.mp3'), mp3File({ frames: 50 }))
    const lines = [
      { prompt: 'What is said here?', audio: join(CLIPS, 'one-second.wav'), output_tokens: 6 },
      { prompt: 'Summarise the clip.', audio: join(tmpDir, 'clip.mp3'), output_tokens: 4 },
    ]
    await writeFile(data, lines.map((l) => JSON.stringify(l)).join('\n'))
    const out = join(tmpDir, 'out')
    const args = [...common(sim.url, out), '--dataset-name', 'custom_audio', '--dataset-path', data]
    args[args.indexOf('openai-audio')] = 'openai-chat'
    const run = await runCli([
      ...args,
      '--enable-multimodal-chat',
      '--custom-output-len',
      '-1',
      '--num-prompts',
      '4',
      '--disable-shuffle',
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    const result = await readOnlyResult(out)
    expect(result.completed).toBe(4)
    expect(result.failed).toBe(0)
    // The simulator counts the text parts only (5 and 6 cl100k tokens), not 50 per audio second.
    expect(new Set(result.input_lens as number[])).toEqual(new Set([5, 6]))
    expect((result.output_lens as number[]).slice(0, 2)).toEqual([6, 4])

    const missing = await runCli([...args, '--result-dir', join(tmpDir, 'none')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(
      '--enable-multimodal-chat is required for custom_audio with --backend openai-chat (it sends each audio file as an input_audio part)',
    )
  })

  test('Earnings22-Cleaned-AA from a local folder: MP3 files named by url, timed from their frames', async ({
    sim,
    tmpDir,
  }) => {
    const dataset = join(tmpDir, 'earnings22')
    await mkdir(join(dataset, 'audio'), { recursive: true })
    // 25 frames of 1152 samples at 48 kHz = 0.6 s; the simulator prefills 50 tokens per second.
    await writeFile(join(dataset, 'audio/a.mp3'), mp3File({ frames: 25 }))
    await writeFile(
      join(dataset, 'audio/b.mp3'),
      mp3File({ frames: 3, vbrTag: { kind: 'Xing', frames: 125 } }),
    )
    await writeFile(
      join(dataset, 'earnings22_cleaned_aa_v1.jsonl'),
      [
        { id: 'a', url: 'audio/a.mp3', transcript: 'a' },
        { id: 'b', url: 'audio/b.mp3', transcript: 'b' },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    )
    const out = join(tmpDir, 'out')
    const run = await runCli([
      ...common(sim.url, out),
      '--dataset-name',
      'hf',
      '--dataset-path',
      dataset,
      '--hf-name',
      'ArtificialAnalysis/Earnings22-Cleaned-AA',
      '--hf-output-len',
      '8',
      '--num-prompts',
      '4',
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    const result = await readOnlyResult(out)
    expect(result.completed).toBe(4)
    expect(new Set(result.input_lens as number[])).toEqual(new Set([30, 150]))
    expect(result.rtfx as number).toBeGreaterThan(0)
  })
})
