import { randomBytes } from 'node:crypto'
import type { AudioInput, RequestOutput } from '../config/records.ts'
import type { HttpClient } from './http.ts'
import { sendStreamingRequest } from './stream-request.ts'
import type { Backend, BackendRequest } from './types.ts'
import { SYNTH_SAMPLE_RATE_HZ, synthesizeWav } from './wav.ts'

/** Path of the OpenAI transcription API (`/v1/audio/translations` works the same way). */
export const TRANSCRIPTIONS_PATH = '/v1/audio/transcriptions'

/**
 * Audio seconds per prompt token of the synthetic input: Whisper's encoder turns 30 s into 1500
 * positions, 50 per second, so a prompt of N tokens becomes N / 50 s of audio.
 */
export const AUDIO_TOKENS_PER_S = 50

/**
 * The `openai-audio` backend: a multipart transcription request, streamed back like chat. A
 * request with `audio` (the ASR families of `hf`, `custom_audio`) sends that file as it is, under
 * its format's name and type (`audio.wav` / `audio/wav`, `audio.flac` / `audio/flac`), and its
 * header's duration feeds `rtfx`. Any other dataset sends synthetic WAV of the prompt's length.
 */
export const audioBackend: Backend = {
  name: 'openai-audio',
  defaultEndpointPath: TRANSCRIPTIONS_PATH,
  task: 'generation',
  async send(request: BackendRequest, client: HttpClient): Promise<RequestOutput> {
    const durationS = request.audio?.durationS ?? audioDurationS(request.promptLen)
    const form = buildAudioForm(request, request.audio ?? synthesizeWav(durationS))
    const output = await sendStreamingRequest(request, client, form.body, chatDeltaText, form.contentType)
    output.inputAudioDurationS = durationS
    return output
  },
}

/** Seconds of synthetic audio for a prompt length (whole samples). */
export function audioDurationS(promptLen: number): number {
  const samples = Math.max(1, Math.round((promptLen / AUDIO_TOKENS_PER_S) * SYNTH_SAMPLE_RATE_HZ))
  return samples / SYNTH_SAMPLE_RATE_HZ
}

/** A multipart/form-data body and its content type. */
export interface MultipartForm {
  body: Uint8Array
  contentType: string
}

/**
 * The form of Python's `async_request_openai_audio`: the `file` part (synthetic WAV bytes, or a
 * dataset's file with its own name and type), then the string
 * fields `model, max_completion_tokens, stream, language, stream_include_usage,
 * stream_continuous_usage_stats`, then `ignore_eos` when set and each `extraBody` key. Values are
 * written as Python's `str()` writes them (`True`, `False`), objects as JSON.
 */
export function buildAudioForm(request: BackendRequest, audio: Uint8Array | AudioInput): MultipartForm {
  const file =
    audio instanceof Uint8Array ? { bytes: audio, fileName: 'audio.wav', contentType: 'audio/wav' } : audio
  const fields: Record<string, unknown> = {
    model: request.model,
    max_completion_tokens: request.outputLen,
    stream: true,
    language: 'en',
    stream_include_usage: true,
    stream_continuous_usage_stats: true,
  }
  if (request.ignoreEos) fields.ignore_eos = true
  Object.assign(fields, request.extraBody)
  const boundary = `----servebench${randomBytes(12).toString('hex')}`
  const parts: Buffer[] = [
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.fileName}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
    ),
    Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength),
    Buffer.from('\r\n'),
  ]
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${formValue(value)}\r\n`,
      ),
    )
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` }
}

function formValue(value: unknown): string {
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (value === null) return 'None'
  return typeof value === 'object' ? JSON.stringify(value) : String(value)
}

/** Transcription chunks carry `choices[0].delta.content`, as chat does. */
function chatDeltaText(choice: unknown): string | undefined {
  const content = (choice as { delta?: { content?: unknown } | null } | null)?.delta?.content
  return typeof content === 'string' ? content : undefined
}
