import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute, resolve } from 'node:path'
import type { CustomAudioDatasetConfig } from '../../config/bench-config.ts'
import type { AudioInput, SampleRequest } from '../../config/records.ts'
import { AudioHeaderError, audioInputOf } from '../audio-duration.ts'
import { renderUserPrompt } from '../chat-prompt.ts'
import type { DatasetContext } from '../index.ts'
import { fieldError, oversample, shuffled, typeName } from '../sampling.ts'
import { lineOutputLen, readCustomJsonl } from './custom-lines.ts'

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
