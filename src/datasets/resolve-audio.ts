/**
 * The audio datasets' resolvers: `custom_audio` (`--dataset-name custom_audio`, or
 * `datasets.customAudio()` through the DSL door) and the ASR families' audio-length range
 * (`--asr-min-audio-len-sec`, `--asr-max-audio-len-sec`). `resolvers.ts` and `resolve-hub.ts` call them.
 */

import type { BackendName, CustomAudioDatasetConfig } from '../config/bench-config.ts'
import {
  type DatasetFlagContext,
  needsTokenizer,
  requireJsonl,
  requirePath,
} from '../config/dataset-flag-checks.ts'
import type { Reader } from '../config/resolve.ts'
import type { ConfigIssue } from '../errors.ts'
import { isAsrDataset } from './hub/hf-audio-families.ts'
import { DEFAULT_LOCAL_DATASETS } from './resolve-local.ts'

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
  requireJsonl(path, issues)
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
