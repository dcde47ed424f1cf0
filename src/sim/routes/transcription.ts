import type { IncomingMessage, ServerResponse } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { SimContext } from '../context.ts'
import { type GenerationRequest, runGeneration, type StreamFormatter } from '../generation.ts'
import type { ChunkHeader } from '../sse-writer.ts'
import { SimHttpError } from './http.ts'

/**
 * Audio tokens per second of input: Whisper's encoder turns 30 s of audio into 1500 positions. A
 * transcription prefills this many tokens per second of audio, so its cost grows with its duration.
 */
export const SIM_AUDIO_TOKENS_PER_S = 50

/**
 * `POST /v1/audio/transcriptions` (and `/v1/audio/translations`): a multipart form with a WAV,
 * FLAC or MP3 `file` and string fields (`model`, `max_completion_tokens`, `stream`, `stream_include_usage`,
 * …). The file's header gives the duration; the request prefills {@link SIM_AUDIO_TOKENS_PER_S} tokens per
 * second of it and streams `transcription.chunk` events, with a usage chunk when
 * `stream_include_usage` is true. Only streaming is simulated.
 * vLLM: vllm/entrypoints/openai/speech_to_text.py.
 */
export function transcriptionHandler(
  ctx: SimContext,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const body = await readRawBody(req)
    const receivedAtPerfMs = performance.now()
    ctx.counters.requestsReceived++
    const form = parseMultipart(body, req.headers['content-type'])
    const request = transcriptionRequest(ctx, form)
    const header = req.headers['x-request-id']
    const requestId = typeof header === 'string' && header !== '' ? header : `sim-${ctx.nextRequestNumber()}`
    if (typeof header === 'string') res.setHeader('x-request-id', header)
    const record = ctx.timings?.start(requestId, req.url ?? '', performance.timeOrigin + receivedAtPerfMs)
    runGeneration(ctx, request, res, receivedAtPerfMs, record)
  }
}

/** The parts of a multipart form: string fields, and files as bytes. */
export interface MultipartForm {
  fields: Map<string, string>
  files: Map<string, Buffer>
}

function transcriptionRequest(ctx: SimContext, form: MultipartForm): GenerationRequest {
  const file = form.files.get('file')
  if (!file) throw new SimHttpError(400, 'file: Field required (a WAV, FLAC or MP3 file)', 'file')
  const durationS = audioDurationS(file)
  if (isFalse(form.fields.get('stream'))) {
    throw new SimHttpError(
      400,
      'servebench sim: only streamed transcriptions are simulated; send stream=true',
      'stream',
    )
  }
  const promptTokens = Math.max(1, Math.ceil(durationS * SIM_AUDIO_TOKENS_PER_S))
  const rawMax = form.fields.get('max_completion_tokens')
  const maxTokens = rawMax === undefined ? 448 : Number(rawMax)
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new SimHttpError(
      400,
      `max_completion_tokens must be an integer >= 1 (got ${rawMax})`,
      'max_completion_tokens',
    )
  }
  const model = form.fields.get('model') || ctx.options.model
  return {
    api: 'chat',
    model,
    choices: [{ promptTokens, seedKey: `audio:${file.length}`, countsPrompt: true }],
    maxTokens,
    ignoreEos: isTrue(form.fields.get('ignore_eos')),
    stream: true,
    includeUsage: isTrue(form.fields.get('stream_include_usage')),
    createFormatter: createTranscriptionFormatter,
  }
}

/** Python sends `str(True)`; accept JSON spellings too. */
function isTrue(value: string | undefined): boolean {
  return value === 'True' || value === 'true' || value === '1'
}

function isFalse(value: string | undefined): boolean {
  return value === 'False' || value === 'false' || value === '0'
}

/** `transcription.chunk` events: `choices[0].delta.content`, then a `choices: []` usage chunk. */
export function createTranscriptionFormatter(header: ChunkHeader): StreamFormatter {
  const head = `data: {"id":${JSON.stringify(`trsc-${header.id.replace(/^[a-z]+-/, '')}`)},"object":"transcription.chunk","created":${header.created},"model":${JSON.stringify(header.model)}`
  return {
    preamble: () => '',
    token: (_index, text, finishReason) =>
      `${head},"choices":[{"delta":{"content":${JSON.stringify(text)}},"finish_reason":${finishReason === null ? 'null' : `"${finishReason}"`},"stop_reason":null}]}\n\n`,
    usage: (usage) =>
      `${head},"choices":[],"usage":${JSON.stringify({
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        total_tokens: usage.promptTokens + usage.completionTokens,
      })}}\n\n`,
  }
}

/** Seconds of audio in a WAV, FLAC or MP3 file, from its headers alone. */
export function audioDurationS(file: Buffer): number {
  if (file.length >= 4 && file.toString('ascii', 0, 4) === 'fLaC') return flacDurationS(file)
  if (file.toString('ascii', 0, 3) === 'ID3' || mp3FrameAt(file, 0) !== undefined) return mp3DurationS(file)
  if (
    file.length < 12 ||
    file.toString('ascii', 0, 4) !== 'RIFF' ||
    file.toString('ascii', 8, 12) !== 'WAVE'
  ) {
    throw new SimHttpError(
      400,
      'file must be a WAV, FLAC or MP3 file (no RIFF/WAVE, fLaC, ID3 or MPEG frame header)',
      'file',
    )
  }
  return wavDurationS(file)
}

// Layer III bitrates (kb/s) of MPEG-1, and of MPEG-2/2.5; Layer I/II files are not simulated.
const MP3_KBPS = [
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
]
const MP3_RATES_HZ = [44_100, 48_000, 32_000]

interface Mp3Frame {
  bytes: number
  samples: number
  rateHz: number
  mono: boolean
  v1: boolean
}

/** An MPEG Layer III frame header at `at`: its byte length, samples and rate; undefined if none. */
function mp3FrameAt(b: Buffer, at: number): Mp3Frame | undefined {
  if (at + 4 > b.length || b[at] !== 0xff || (b[at + 1]! & 0xe0) !== 0xe0) return undefined
  const version = (b[at + 1]! >> 3) & 3 // 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5
  const kbps = MP3_KBPS[version === 3 ? 0 : 1]![b[at + 2]! >> 4]
  const rateIndex = (b[at + 2]! >> 2) & 3
  if (version === 1 || ((b[at + 1]! >> 1) & 3) !== 1 || !kbps || rateIndex === 3) return undefined
  const rateHz = MP3_RATES_HZ[rateIndex]! / (version === 3 ? 1 : version === 2 ? 2 : 4)
  const samples = version === 3 ? 1152 : 576
  const bytes = Math.floor((samples / 8) * ((kbps * 1000) / rateHz)) + ((b[at + 2]! >> 1) & 1)
  return { bytes, samples, rateHz, mono: b[at + 3]! >> 6 === 3, v1: version === 3 }
}

/**
 * Seconds of an MP3 (Layer III): after any ID3v2 tag, the frame count of a Xing/Info header in the
 * first frame when there is one, else the frames walked one header after another.
 */
function mp3DurationS(b: Buffer): number {
  let at = 0
  if (b.toString('ascii', 0, 3) === 'ID3' && b.length >= 10) {
    at = 10 + (((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f))
  }
  while (at + 4 <= b.length && mp3FrameAt(b, at) === undefined) at++
  const first = mp3FrameAt(b, at)
  if (first === undefined)
    throw new SimHttpError(400, 'file: MP3 file without an MPEG Layer III frame', 'file')
  const xing = at + 4 + (first.v1 ? (first.mono ? 17 : 32) : first.mono ? 9 : 17)
  const tag = b.toString('ascii', xing, xing + 4)
  if ((tag === 'Xing' || tag === 'Info') && xing + 12 <= b.length && (b.readUInt32BE(xing + 4) & 1) !== 0)
    return (b.readUInt32BE(xing + 8) * first.samples) / first.rateHz
  let samples = 0
  for (
    let frame: Mp3Frame | undefined = first;
    frame !== undefined && at + frame.bytes <= b.length;
    frame = mp3FrameAt(b, at)
  ) {
    samples += frame.samples
    at += frame.bytes
  }
  return samples / first.rateHz
}

/**
 * Seconds of audio in a FLAC file: total samples over the sample rate, both in the STREAMINFO
 * block that must follow the `fLaC` marker (a 4-byte block header, then 20 bits of sample rate at
 * byte 18 and 36 bits of total samples ending at byte 25).
 */
function flacDurationS(flac: Buffer): number {
  if (flac.length < 26 || (flac[4]! & 0x7f) !== 0) {
    throw new SimHttpError(400, 'file: FLAC file without its STREAMINFO block', 'file')
  }
  const sampleRateHz = (flac[18]! << 12) | (flac[19]! << 4) | (flac[20]! >> 4)
  const totalSamples = (flac[21]! & 0x0f) * 2 ** 32 + flac.readUInt32BE(22)
  if (sampleRateHz === 0) throw new SimHttpError(400, 'file: FLAC STREAMINFO has a sample rate of 0', 'file')
  return totalSamples / sampleRateHz
}

/** Seconds of audio in a PCM WAV: the `data` chunk's size over the `fmt ` chunk's byte rate. */
function wavDurationS(wav: Buffer): number {
  let byteRate = 0
  let offset = 12
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4)
    const size = wav.readUInt32LE(offset + 4)
    if (id === 'fmt ' && offset + 16 <= wav.length) byteRate = wav.readUInt32LE(offset + 16)
    if (id === 'data') {
      if (byteRate <= 0) throw new SimHttpError(400, 'file: WAV data chunk before its fmt chunk', 'file')
      return Math.min(size, wav.length - offset - 8) / byteRate
    }
    offset += 8 + size + (size % 2)
  }
  throw new SimHttpError(400, 'file: WAV file has no data chunk', 'file')
}

/** Splits a `multipart/form-data` body at its boundary; parts with a filename are files. */
export function parseMultipart(body: Buffer, contentType: string | undefined): MultipartForm {
  const match = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? '')
  const boundary = match?.[1] ?? match?.[2]
  if (!contentType?.toLowerCase().startsWith('multipart/form-data') || !boundary) {
    throw new SimHttpError(400, 'Content-Type must be multipart/form-data with a boundary')
  }
  const delimiter = Buffer.from(`--${boundary}`)
  const form: MultipartForm = { fields: new Map(), files: new Map() }
  let start = body.indexOf(delimiter)
  while (start !== -1) {
    const partStart = start + delimiter.length
    if (body.toString('ascii', partStart, partStart + 2) === '--') break
    const next = body.indexOf(delimiter, partStart)
    if (next === -1) break
    // A part is CRLF, headers, CRLF CRLF, content, CRLF before the next delimiter.
    const part = body.subarray(partStart + 2, next - 2)
    const split = part.indexOf('\r\n\r\n')
    if (split !== -1) {
      const headers = part.toString('utf8', 0, split)
      const name = /name="([^"]*)"/i.exec(headers)?.[1]
      const content = part.subarray(split + 4)
      if (name !== undefined) {
        if (/filename="/i.test(headers)) form.files.set(name, Buffer.from(content))
        else form.fields.set(name, content.toString('utf8'))
      }
    }
    start = next
  }
  return form
}

function readRawBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}
