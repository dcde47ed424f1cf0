import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute, resolve } from 'node:path'
import type { CustomAudioDatasetConfig } from '../config/bench-config.ts'
import type { AudioInput, SampleRequest } from '../config/records.ts'
import { DatasetError } from '../errors.ts'
import { AudioHeaderError, audioInputOf } from './audio-duration.ts'
import { renderUserPrompt } from './chat-prompt.ts'
import type { DatasetContext } from './index.ts'
import { fieldError, oversample, parseJsonl, readDatasetFile, shuffled, typeName } from './sampling.ts'

const NAME = 'custom_audio'

/** `--custom-output-len -1`: take each line's `output_tokens`. */
const PER_LINE_OUTPUT_LEN = -1

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
  if (!path.endsWith('.jsonl'))
    throw new DatasetError(`${NAME}: --dataset-path must be a .jsonl file (got ${path})`)
  const rows = parseJsonl(NAME, path, await readDatasetFile(NAME, path))
  const perLine = config.outputLen === PER_LINE_OUTPUT_LEN
  const lines = rows.map(({ line, value }) => {
    const prompt = value.prompt ?? ''
    if (typeof prompt !== 'string')
      throw fieldError(NAME, path, line, 'prompt', `must be a string (got ${typeName(prompt)})`)
    const audio = value.audio
    if (audio === undefined)
      throw fieldError(NAME, path, line, 'audio', 'is missing (a WAV, FLAC or MP3 file path)')
    if (typeof audio !== 'string' || audio === '')
      throw fieldError(NAME, path, line, 'audio', `must be a file path (got ${JSON.stringify(audio)})`)
    const tokens = value.output_tokens
    if (tokens !== undefined && !(Number.isInteger(tokens) && (tokens as number) >= 1)) {
      throw fieldError(
        NAME,
        path,
        line,
        'output_tokens',
        `must be an integer of at least 1 (got ${JSON.stringify(tokens)})`,
      )
    }
    if (perLine && tokens === undefined)
      throw fieldError(NAME, path, line, 'output_tokens', 'is missing (needed by --custom-output-len -1)')
    return { line, prompt, audio, outputLen: perLine ? (tokens as number) : config.outputLen }
  })
  if (lines.length === 0) throw new DatasetError(`${NAME}: ${path} has no lines`)
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
