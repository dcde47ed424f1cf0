/**
 * The audio datasets from their flags or their DSL options: `custom_audio`
 * (`--dataset-name custom_audio`, `datasets.customAudio()`) and the ASR families' audio-length
 * range (`--asr-min-audio-len-sec`, `--asr-max-audio-len-sec`; `datasets.hf({ asrMinAudioLenS })`).
 * `resolve-dataset.ts`, `hub-datasets-flags.ts`, `hub-datasets-dsl.ts` and `from-dsl.ts` call them.
 */
import { isAsrDataset } from '../datasets/hf-audio-families.ts'
import type { ConfigIssue } from '../errors.ts'
import type { BackendName, CustomAudioDatasetConfig } from './bench-config.ts'
import { type DatasetFlagContext, needsTokenizer, requirePath } from './dataset-flag-checks.ts'
import { DEFAULT_LOCAL_DATASETS } from './local-datasets-flags.ts'
import type { Reader } from './resolve.ts'

/** Options of `datasets.customAudio` (`--dataset-name custom_audio`). See docs/datasets.md. */
export interface CustomAudioDatasetOptions {
  /** A `.jsonl` file of `{"prompt"?, "audio": path, "output_tokens"?}` lines (`--dataset-path`). */
  path: string
  /** Output tokens per request; -1 takes each line's `output_tokens` (`--custom-output-len`). @default 256 */
  outputLen?: number
  /** Count prompts without the tokenizer's chat template (`--skip-chat-template`). @default false */
  skipChatTemplate?: boolean
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Keep file order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat lines when the file has fewer than `numPrompts` (`--no-oversample`). @default false */
  noOversample?: boolean
  /**
   * Send each audio file to `openai-chat` as an `input_audio` part after the prompt
   * (`--enable-multimodal-chat`, Python's path for chat audio models); required with that backend,
   * refused with `openai-audio`. @default false
   */
  enableMultimodalChat?: boolean
}

/** A tagged `custom_audio` dataset, as `datasets.customAudio()` returns it. */
export interface CustomAudioDatasetSpec extends CustomAudioDatasetOptions {
  readonly kind: 'custom_audio'
}

/** The backend that sends a dataset's audio: Python's transcription request. */
const AUDIO_BACKEND: BackendName = 'openai-audio'

/** The backend that takes `custom_audio`'s audio as an `input_audio` chat part (`--enable-multimodal-chat`). */
const AUDIO_CHAT_BACKEND: BackendName = 'openai-chat'

/**
 * Python's two custom_audio paths: `openai-audio` sends the file for transcription;
 * `--enable-multimodal-chat` turns it into an `input_audio` part, which only `openai-chat` sends
 * (the transcription request of Python refuses it, and a chat request without it fails, as
 * Python's decoded audio is not JSON).
 */
function customAudioBackendIssue(backend: BackendName, multimodalChat: boolean): string | undefined {
  if (backend === AUDIO_BACKEND && !multimodalChat) return undefined
  if (backend === AUDIO_CHAT_BACKEND && multimodalChat) return undefined
  if (backend === AUDIO_BACKEND) return 'sends the audio as a chat part, which openai-audio cannot send'
  if (backend === AUDIO_CHAT_BACKEND) return 'missing'
  return 'other'
}

/** `--dataset-name custom_audio`: the path, `--custom-output-len` (-1 or at least 1), the order switches. */
export function resolveCustomAudioFlags(read: Reader, context: DatasetFlagContext): CustomAudioDatasetConfig {
  const { backend, issues } = context
  const problem = customAudioBackendIssue(backend, read.bool('--enable-multimodal-chat'))
  if (problem === 'missing') {
    issues.push({
      path: '--enable-multimodal-chat',
      message:
        'is required for custom_audio with --backend openai-chat (it sends each audio file as an input_audio part)',
    })
  } else if (problem === 'other') {
    issues.push({
      path: '--dataset-name',
      message: `custom_audio needs --backend openai-audio (it sends each line's audio file for transcription) or openai-chat with --enable-multimodal-chat (an input_audio part); got --backend ${backend}`,
    })
  } else if (problem !== undefined) {
    issues.push({
      path: '--enable-multimodal-chat',
      message: `${problem} (drop it, or use --backend openai-chat)`,
    })
  }
  needsTokenizer('custom_audio', context, 'it needs a tokenizer to count prompt tokens')
  const path = requirePath(read, 'custom_audio', 'a .jsonl file', issues)
  const outputLen =
    read.int('--output-len', 1) ??
    read.int('--custom-output-len', -1) ??
    DEFAULT_LOCAL_DATASETS.custom.outputLen
  if (outputLen === 0) {
    issues.push({
      path: '--custom-output-len',
      message: "must be -1 (each line's output_tokens) or at least 1 (got 0)",
    })
  }
  return {
    kind: 'custom_audio',
    path,
    outputLen,
    skipChatTemplate: read.bool('--skip-chat-template'),
    disableShuffle: read.bool('--disable-shuffle'),
    noOversample: read.bool('--no-oversample'),
  }
}

/** Validates a `datasets.customAudio()` spec, pushing every issue with its DSL path. */
export function resolveCustomAudioSpec(
  spec: CustomAudioDatasetOptions,
  ctx: { issues: ConfigIssue[]; at: (path: string) => string; backend: BackendName },
): CustomAudioDatasetConfig {
  const { issues, at, backend } = ctx
  const problem = customAudioBackendIssue(backend, spec.enableMultimodalChat === true)
  if (problem === 'missing') {
    issues.push({
      path: at('dataset.enableMultimodalChat'),
      message:
        "must be true for datasets.customAudio() with endpoint({ backend: 'openai-chat' }) (it sends each audio file as an input_audio part)",
    })
  } else if (problem === 'other') {
    issues.push({
      path: at('dataset'),
      message: `datasets.customAudio() needs endpoint({ backend: 'openai-audio' }) (it sends audio files for transcription) or 'openai-chat' with enableMultimodalChat: true; got '${backend}'`,
    })
  } else if (problem !== undefined) {
    issues.push({
      path: at('dataset.enableMultimodalChat'),
      message: `${problem} (drop it, or use endpoint({ backend: 'openai-chat' }))`,
    })
  }
  if (typeof spec.path !== 'string' || !spec.path.endsWith('.jsonl')) {
    issues.push({
      path: at('dataset.path'),
      message: `must be a .jsonl file (got ${JSON.stringify(spec.path)})`,
    })
  }
  const outputLen = spec.outputLen ?? DEFAULT_LOCAL_DATASETS.custom.outputLen
  if (!(Number.isInteger(outputLen) && (outputLen >= 1 || outputLen === -1))) {
    issues.push({
      path: at('dataset.outputLen'),
      message: `must be -1 (each line's output_tokens) or an integer of at least 1 (got ${outputLen})`,
    })
  }
  return {
    kind: 'custom_audio',
    path: spec.path ?? '',
    outputLen,
    skipChatTemplate: spec.skipChatTemplate ?? false,
    disableShuffle: spec.disableShuffle ?? false,
    noOversample: spec.noOversample ?? false,
  }
}

/** A min/max audio length in seconds, Python's defaults filled in (0 and infinity). */
export interface AudioLenRange {
  min: number
  max: number
}

/**
 * `--asr-min-audio-len-sec` / `--asr-max-audio-len-sec` (seconds, `inf` allowed for the max);
 * undefined when neither is given. An ASR dataset on another backend than openai-audio is an issue.
 */
export function readAsrFlags(
  read: Reader,
  datasetId: string | undefined,
  context: DatasetFlagContext,
): AudioLenRange | undefined {
  const { issues, backend } = context
  if (datasetId !== undefined && isAsrDataset(datasetId) && backend !== AUDIO_BACKEND) {
    issues.push({
      path: '--backend',
      message: `must be openai-audio for the ASR dataset ${datasetId} (it sends each row's audio for transcription; Python has no chat path for it); got ${backend}`,
    })
  }
  const seconds = (name: string): number | undefined => {
    const raw = read.string(name)
    if (raw === undefined) return undefined
    const value = /^\+?inf(inity)?$/i.test(raw.trim()) ? Infinity : Number(raw)
    if (raw.trim() === '' || Number.isNaN(value) || value < 0) {
      issues.push({ path: name, message: `must be a number of seconds ≥ 0 (got "${raw}")` })
      return undefined
    }
    return value
  }
  const min = seconds('--asr-min-audio-len-sec')
  const max = seconds('--asr-max-audio-len-sec')
  return audioLenRange(min, max, issues, '--asr-min-audio-len-sec', '--asr-max-audio-len-sec')
}

/** `datasets.hf({ asrMinAudioLenS, asrMaxAudioLenS })`, checked as the flags are. */
export function resolveAsrSpec(
  spec: { path?: string; hfName?: string; asrMinAudioLenS?: number; asrMaxAudioLenS?: number },
  ctx: { issues: ConfigIssue[]; at: (path: string) => string; backend?: BackendName },
): AudioLenRange | undefined {
  const { issues, at, backend } = ctx
  const id = spec.hfName ?? spec.path
  if (id !== undefined && isAsrDataset(id) && backend !== undefined && backend !== AUDIO_BACKEND) {
    issues.push({
      path: at('dataset'),
      message: `the ASR dataset ${id} needs endpoint({ backend: 'openai-audio' }) (Python has no chat path for it); got '${backend}'`,
    })
  }
  const check = (key: 'asrMinAudioLenS' | 'asrMaxAudioLenS'): number | undefined => {
    const value = spec[key]
    if (value === undefined) return undefined
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
      issues.push({ path: at(`dataset.${key}`), message: `must be a number of seconds ≥ 0 (got ${value})` })
      return undefined
    }
    return value
  }
  const min = check('asrMinAudioLenS')
  const max = check('asrMaxAudioLenS')
  return audioLenRange(min, max, issues, at('dataset.asrMinAudioLenS'), at('dataset.asrMaxAudioLenS'))
}

function audioLenRange(
  min: number | undefined,
  max: number | undefined,
  issues: ConfigIssue[],
  minPath: string,
  maxPath: string,
): AudioLenRange | undefined {
  if (min === undefined && max === undefined) return undefined
  const range = { min: min ?? 0, max: max ?? Infinity }
  if (range.min > range.max) {
    issues.push({ path: minPath, message: `must not exceed ${maxPath} (got ${range.min} > ${range.max})` })
  }
  return range
}
