import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute, resolve } from 'node:path'
import type { BackendName } from '../../config/bench-config.ts'
import {
  type DatasetFlagContext,
  needsTokenizer,
  requireJsonl,
  requirePath,
} from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { AudioInput, SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { AudioHeaderError, audioInputOf } from '../audio-duration.ts'
import { renderUserPrompt } from '../chat-prompt.ts'
import { type DatasetContext, defineDataset } from '../dataset-module.ts'
import { fieldError, oversample, shuffled, typeName } from '../sampling.ts'
import {
  ENABLE_MULTIMODAL_CHAT,
  ORDER_FLAGS,
  type OrderConfig,
  orderedFileFields,
  readOrder,
  SKIP_CHAT_TEMPLATE,
} from '../shared-flags.ts'
import { CUSTOM_OUTPUT_LEN, lineOutputLen, readCustomJsonl, readCustomOutputLen } from './custom-lines.ts'

/** `--dataset-name custom_audio`: JSONL lines with `audio` (a WAV, FLAC or MP3 file path), `prompt` and `output_tokens`. */
export interface CustomAudioDatasetConfig extends OrderConfig {
  kind: 'custom_audio'
  path: string
  /** `--custom-output-len`; -1 takes each line's `output_tokens`. */
  outputLen: number
  /** `--skip-chat-template`: count each prompt raw instead of rendered with the tokenizer's chat template. */
  skipChatTemplate: boolean
}

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

/**
 * `--dataset-name custom_audio`: JSONL lines with an audio file each, sent by `openai-audio`, or
 * by `openai-chat` as `input_audio` parts with `--enable-multimodal-chat`.
 */
export const customAudioDataset = defineDataset<CustomAudioDatasetConfig, CustomAudioDatasetOptions>({
  kind: 'custom_audio',
  summary:
    'your JSONL prompts with a WAV, FLAC or MP3 file each (`openai-audio`, or `openai-chat` with `--enable-multimodal-chat`)',
  datasetName: 'custom_audio',
  builder: 'customAudio',
  fields: orderedFileFields<CustomAudioDatasetOptions>({
    outputLen: f(CUSTOM_OUTPUT_LEN.name),
    skipChatTemplate: f(SKIP_CHAT_TEMPLATE.name, 'switch'),
    enableMultimodalChat: f(ENABLE_MULTIMODAL_CHAT.name, 'switch'),
  }),
  flags: [CUSTOM_OUTPUT_LEN, SKIP_CHAT_TEMPLATE, ENABLE_MULTIMODAL_CHAT, ...ORDER_FLAGS],
  resolve: resolveCustomAudioFlags,
  generate: generateCustomAudio,
})

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
function resolveCustomAudioFlags(read: Reader, context: DatasetFlagContext): CustomAudioDatasetConfig {
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
  return {
    kind: 'custom_audio',
    path,
    outputLen: readCustomOutputLen(read, issues, true),
    skipChatTemplate: read.bool(SKIP_CHAT_TEMPLATE.name),
    ...readOrder(read),
  }
}

const NAME = 'custom_audio'

/**
 * The `custom_audio` dataset (Python: `CustomAudioDataset`). Each JSONL line is
 * `{"prompt"?: str, "audio": path, "output_tokens"?: int}`; `audio` names a WAV, FLAC or MP3
 * file, relative to the current directory as in Python (else to the JSONL file's folder). Lines
 * are shuffled with the seed unless `disableShuffle`; the first `numPrompts` are read and
 * oversampled unless `noOversample`. The audio file's bytes are sent as they are.
 * - `openai-audio` (the transcription path): `promptLen` counts the prompt with special tokens,
 *   rendered with the tokenizer's chat template when it has one (unless `skipChatTemplate`); the
 *   transcription form itself carries no prompt.
 * - `openai-chat` (Python's `--enable-multimodal-chat` path): the raw prompt is the text part and
 *   the chat backend sends the audio after it as an `input_audio` part; `promptLen` counts the raw
 *   prompt, as Python does (the server's `usage.prompt_tokens` replaces it).
 */
export async function generateCustomAudio(
  config: CustomAudioDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { path } = config
  const lines = (await readCustomJsonl(NAME, path)).map((row) => {
    const { line, value } = row
    const prompt = value.prompt ?? ''
    if (typeof prompt !== 'string')
      throw fieldError(NAME, path, line, 'prompt', `must be a string (got ${typeName(prompt)})`)
    const audio = value.audio
    if (audio === undefined)
      throw fieldError(NAME, path, line, 'audio', 'is missing (a WAV, FLAC or MP3 file path)')
    if (typeof audio !== 'string' || audio === '')
      throw fieldError(NAME, path, line, 'audio', `must be a file path (got ${JSON.stringify(audio)})`)
    return { line, prompt, audio, outputLen: lineOutputLen(NAME, path, row, config.outputLen) }
  })
  const picked = shuffled(lines, context.seed, config.disableShuffle).slice(0, context.numPrompts)
  // The openai-audio path of Python templates whenever the tokenizer has a template (no note without
  // one); its chat path sends the prompt raw, for the server to template.
  const chat = context.backend === 'openai-chat'
  const templated = !chat && !config.skipChatTemplate && context.tokenizer.chatTemplate !== undefined
  const requests: SampleRequest[] = []
  for (const { line, prompt: raw, audio, outputLen } of picked) {
    const prompt = templated ? renderUserPrompt(raw, context) : raw
    const promptLen = (await context.tokenizer.encode(prompt, { addSpecialTokens: true })).length
    requests.push({
      prompt,
      promptLen,
      expectedOutputLen: outputLen,
      audio: await readAudio(path, line, audio),
    })
  }
  return oversample(requests, context.numPrompts, context.seed, config.noOversample)
}

async function readAudio(jsonlPath: string, line: number, audio: string): Promise<AudioInput> {
  const candidates = isAbsolute(audio) ? [audio] : [resolve(audio), resolve(dirname(jsonlPath), audio)]
  let bytes: Uint8Array | undefined
  for (const candidate of candidates) {
    bytes = await readFile(candidate).catch(() => undefined)
    if (bytes !== undefined) break
  }
  if (bytes === undefined) {
    const where = isAbsolute(audio) ? '' : ` (looked in the current directory and next to ${jsonlPath})`
    throw fieldError(NAME, jsonlPath, line, 'audio', `names ${audio}, which cannot be read${where}`)
  }
  try {
    return audioInputOf(bytes)
  } catch (error) {
    if (error instanceof AudioHeaderError)
      throw fieldError(NAME, jsonlPath, line, 'audio', `names ${audio}: ${error.message}`)
    throw error
  }
}
