import { describe, expect, it } from 'vitest'
import { argvIssues, resolveArgv } from '../../../test/config-doors.ts'
import type { ConfigError } from '../../errors.ts'
import { benchConfigFromDsl } from '../../options/from-dsl.ts'

const AUDIO = ['--backend', 'openai-audio']

describe('custom_audio flags', () => {
  // Its defaults and `--custom-output-len -1` are tested beside custom's, in local-flags.test.ts.
  it('needs openai-audio (or openai-chat with --enable-multimodal-chat), a path and a tokenizer', () => {
    expect(argvIssues(['--dataset-name', 'custom_audio', '--skip-tokenizer-init'])).toEqual([
      "--dataset-name custom_audio needs --backend openai-audio (it sends each line's audio file for transcription) or openai-chat with --enable-multimodal-chat (an input_audio part); got --backend openai",
      '--skip-tokenizer-init cannot be used with --dataset-name custom_audio: it needs a tokenizer to count prompt tokens',
      '--dataset-path is required with --dataset-name custom_audio (a .jsonl file)',
    ])
  })
})

describe('custom_audio on openai-chat', () => {
  const custom = ['--dataset-name', 'custom_audio', '--dataset-path', 'a.jsonl']
  it('takes --enable-multimodal-chat with openai-chat, and needs it there', () => {
    expect(
      resolveArgv(['--backend', 'openai-chat', '--enable-multimodal-chat', ...custom]).dataset,
    ).toMatchObject({ kind: 'custom_audio', path: 'a.jsonl' })
    expect(argvIssues(['--backend', 'openai-chat', ...custom])).toEqual([
      '--enable-multimodal-chat is required for custom_audio with --backend openai-chat (it sends each audio file as an input_audio part)',
    ])
  })

  it('refuses --enable-multimodal-chat with openai-audio', () => {
    expect(argvIssues([...AUDIO, '--enable-multimodal-chat', ...custom])).toEqual([
      '--enable-multimodal-chat sends the audio as a chat part, which openai-audio cannot send (drop it, or use --backend openai-chat)',
    ])
  })
})

describe('ASR flags of hf', () => {
  it('reads the audio-length range (inf allowed) into the hf config', () => {
    const hf = ['--dataset-name', 'hf', '--dataset-path', 'openslr/librispeech_asr']
    expect(resolveArgv([...AUDIO, ...hf, '--asr-min-audio-len-sec', '1.5']).dataset).toMatchObject({
      asrAudioLenS: { min: 1.5, max: Infinity },
    })
    expect(
      resolveArgv([...AUDIO, ...hf, '--asr-min-audio-len-sec', '0', '--asr-max-audio-len-sec', 'inf'])
        .dataset,
    ).toMatchObject({ asrAudioLenS: { min: 0, max: Infinity } })
    expect(resolveArgv([...AUDIO, ...hf]).dataset).not.toHaveProperty('asrAudioLenS')
  })

  it('reports a bad range and an ASR set on another backend', () => {
    expect(
      argvIssues([
        '--dataset-name',
        'hf',
        '--dataset-path',
        'x.parquet',
        '--hf-name',
        'facebook/voxpopuli',
        '--asr-min-audio-len-sec',
        '-1',
        '--asr-max-audio-len-sec',
        'soon',
      ]),
    ).toEqual([
      "--backend must be openai-audio for the ASR dataset facebook/voxpopuli (it sends each row's audio for transcription; Python has no chat path for it); got openai",
      '--asr-min-audio-len-sec must be a number of seconds ≥ 0 (got "-1")',
      '--asr-max-audio-len-sec must be a number of seconds ≥ 0 (got "soon")',
    ])
    expect(
      argvIssues([
        ...AUDIO,
        '--dataset-name',
        'hf',
        '--dataset-path',
        'LIUM/tedlium',
        '--asr-min-audio-len-sec',
        '30',
        '--asr-max-audio-len-sec',
        '10',
      ]),
    ).toEqual(['--asr-min-audio-len-sec must not exceed --asr-max-audio-len-sec (got 30 > 10)'])
  })
})

describe('DSL', () => {
  const ctx = { name: 'asr', defaultBaseUrl: 'http://127.0.0.1:1' }
  it('datasets.customAudio() and hf ASR options resolve like their flags', () => {
    const custom = benchConfigFromDsl(
      {
        endpoint: { kind: 'endpoint', backend: 'openai-audio', model: 'whisper' },
        dataset: { kind: 'custom_audio', path: 'a.jsonl', outputLen: -1, numPrompts: 4 },
      },
      ctx,
    )
    expect(custom.dataset).toEqual({
      kind: 'custom_audio',
      path: 'a.jsonl',
      outputLen: -1,
      skipChatTemplate: false,
      disableShuffle: false,
      noOversample: false,
    })
    const hf = benchConfigFromDsl(
      {
        endpoint: { kind: 'endpoint', backend: 'openai-audio', model: 'whisper' },
        dataset: { kind: 'hf', path: 'openslr/librispeech_asr', asrMaxAudioLenS: 30 },
      },
      ctx,
    )
    expect(hf.dataset).toMatchObject({ asrAudioLenS: { min: 0, max: 30 } })
  })

  it('reports the backend, the path and the output length of datasets.customAudio()', () => {
    let issues: string[] = []
    try {
      benchConfigFromDsl(
        {
          endpoint: { kind: 'endpoint', backend: 'openai-chat', model: 'whisper' },
          dataset: { kind: 'custom_audio', path: 'a.json', outputLen: 0 },
        },
        ctx,
      )
    } catch (error) {
      issues = (error as ConfigError).issues.map((i) => `${i.path} ${i.message}`)
    }
    expect(issues).toEqual([
      "serveBench('asr').dataset.enableMultimodalChat is required for custom_audio with endpoint({ backend: 'openai-chat' }) (it sends each audio file as an input_audio part)",
      `serveBench('asr').dataset.path must be a .jsonl file (got "a.json")`,
      "serveBench('asr').dataset.outputLen must be -1 (each line's output_tokens) or at least 1 (got 0)",
    ])
  })

  it('datasets.customAudio({ enableMultimodalChat }) goes with openai-chat only', () => {
    const chat = benchConfigFromDsl(
      {
        endpoint: { kind: 'endpoint', backend: 'openai-chat', model: 'qwen2-audio' },
        dataset: { kind: 'custom_audio', path: 'a.jsonl', enableMultimodalChat: true },
      },
      ctx,
    )
    expect(chat.dataset).toMatchObject({ kind: 'custom_audio', path: 'a.jsonl' })
    const issues = (backend: 'openai-audio' | 'openai'): string[] => {
      try {
        benchConfigFromDsl(
          {
            endpoint: { kind: 'endpoint', backend, model: 'm' },
            dataset: {
              kind: 'custom_audio',
              path: 'a.jsonl',
              enableMultimodalChat: backend === 'openai-audio',
            },
          },
          ctx,
        )
      } catch (error) {
        return (error as ConfigError).issues.map((i) => `${i.path} ${i.message}`)
      }
      return []
    }
    expect(issues('openai-audio')).toEqual([
      "serveBench('asr').dataset.enableMultimodalChat sends the audio as a chat part, which openai-audio cannot send (drop it, or use endpoint({ backend: 'openai-chat' }))",
    ])
    expect(issues('openai')).toEqual([
      "serveBench('asr').dataset custom_audio needs endpoint({ backend: 'openai-audio' }) (it sends each line's audio file for transcription) or openai-chat with dataset.enableMultimodalChat (an input_audio part); got endpoint({ backend: 'openai' })",
    ])
  })
})
