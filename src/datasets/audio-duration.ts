import type { AudioInput } from '../config/records.ts'

/**
 * The duration of an audio file read from its header, with no decoder: WAV from its `fmt ` and
 * `data` chunks, FLAC from its STREAMINFO block. Python decodes every file with soundfile to
 * learn its length; the header gives the same `frames / sample rate` for these two formats.
 */

/** The formats whose duration servebench reads. */
export type AudioFormat = 'wav' | 'flac'

/** What the header of an audio file says. */
export interface AudioHeader {
  format: AudioFormat
  sampleRateHz: number
  channels: number
  /** Samples per channel. */
  frames: number
  /** `frames / sampleRateHz`, soundfile's `duration`. */
  durationS: number
}

/** The file name and MIME type servebench sends each format under. */
export const AUDIO_FILE_TYPES: Readonly<Record<AudioFormat, { fileName: string; contentType: string }>> = {
  wav: { fileName: 'audio.wav', contentType: 'audio/wav' },
  flac: { fileName: 'audio.flac', contentType: 'audio/flac' },
}

/** Why a file's duration could not be read; the message says what the file is. */
export class AudioHeaderError extends Error {}

/**
 * Reads the header of a WAV or FLAC file. Throws an {@link AudioHeaderError} naming the format
 * for anything else (MP3, Ogg, MP4, AIFF, ...) and for a WAV or FLAC header that is cut short or
 * gives no length.
 */
export function readAudioHeader(bytes: Uint8Array): AudioHeader {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const format = sniffAudioFormat(view)
  if (format === 'WAV') return readWav(view)
  if (format === 'FLAC') return readFlac(view, id3v2Size(view))
  if (format === 'MP3' && id3v2Size(view) > 0 && isFlacAt(view, id3v2Size(view)))
    return readFlac(view, id3v2Size(view))
  throw new AudioHeaderError(
    `${format === 'unknown' ? 'an unknown format' : format} audio; servebench reads the duration of WAV and FLAC only`,
  )
}

/**
 * The container or codec a file's first bytes name: `WAV`, `FLAC`, `MP3`, `Ogg`, `MP4`, `AIFF`,
 * `WebM`, or `unknown` (also for an empty file).
 */
export function sniffAudioFormat(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const ascii = (start: number, end: number): string => b.toString('latin1', start, end)
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return 'WAV'
  if (ascii(0, 4) === 'RF64' || ascii(0, 4) === 'BW64') return 'RF64 WAV'
  if (ascii(0, 4) === 'fLaC') return 'FLAC'
  if (ascii(0, 3) === 'ID3' || (b.length >= 2 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0)) return 'MP3'
  if (ascii(0, 4) === 'OggS') return 'Ogg'
  if (ascii(4, 8) === 'ftyp') return 'MP4'
  if (ascii(0, 4) === 'FORM' && /^AIF[FC]$/.test(ascii(8, 12))) return 'AIFF'
  if (b.length >= 4 && b.readUInt32BE(0) === 0x1a45dfa3) return 'WebM'
  return 'unknown'
}

// WAVE format tags whose data chunk is plain frames of blockAlign bytes.
const PCM = 1
const IEEE_FLOAT = 3
const EXTENSIBLE = 0xfffe

function readWav(b: Buffer): AudioHeader {
  let fmt: { tag: number; channels: number; sampleRateHz: number; blockAlign: number } | undefined
  let factFrames: number | undefined
  let offset = 12
  while (offset + 8 <= b.length) {
    const id = b.toString('latin1', offset, offset + 4)
    const size = b.readUInt32LE(offset + 4)
    const body = offset + 8
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > b.length)
        throw new AudioHeaderError('WAV audio with a cut-short fmt chunk')
      fmt = {
        tag: b.readUInt16LE(body),
        channels: b.readUInt16LE(body + 2),
        sampleRateHz: b.readUInt32LE(body + 4),
        blockAlign: b.readUInt16LE(body + 12),
      }
    } else if (id === 'fact' && body + 4 <= b.length) {
      factFrames = b.readUInt32LE(body)
    } else if (id === 'data') {
      if (fmt === undefined)
        throw new AudioHeaderError('WAV audio whose data chunk comes before its fmt chunk')
      if (fmt.sampleRateHz === 0) throw new AudioHeaderError('WAV audio with a sample rate of 0')
      // A streamed WAV leaves the size at 0 or 0xFFFFFFFF; the bytes that follow are the data.
      const available = b.length - body
      const dataBytes = size === 0 || size === 0xffffffff ? available : Math.min(size, available)
      const plain = fmt.tag === PCM || fmt.tag === IEEE_FLOAT || fmt.tag === EXTENSIBLE
      let frames: number
      if (plain && fmt.blockAlign > 0) frames = Math.floor(dataBytes / fmt.blockAlign)
      else if (factFrames !== undefined) frames = factFrames
      else
        throw new AudioHeaderError(
          `WAV audio in a compressed encoding (format tag ${fmt.tag}) with no fact chunk`,
        )
      return {
        format: 'wav',
        sampleRateHz: fmt.sampleRateHz,
        channels: fmt.channels,
        frames,
        durationS: frames / fmt.sampleRateHz,
      }
    }
    offset = body + size + (size % 2)
  }
  throw new AudioHeaderError(
    fmt === undefined ? 'WAV audio with no fmt chunk' : 'WAV audio with no data chunk',
  )
}

const STREAMINFO = 0
const STREAMINFO_BYTES = 34

function readFlac(b: Buffer, start: number): AudioHeader {
  // "fLaC", then metadata blocks: 1 bit last-block flag, 7 bits type, 24 bits length. STREAMINFO comes first.
  const header = start + 4
  if (b.length < header + 4 + STREAMINFO_BYTES)
    throw new AudioHeaderError('FLAC audio cut short before its STREAMINFO block')
  const type = b[header]! & 0x7f
  const length = b.readUIntBE(header + 1, 3)
  if (type !== STREAMINFO || length < STREAMINFO_BYTES)
    throw new AudioHeaderError('FLAC audio whose first metadata block is not STREAMINFO')
  // STREAMINFO from byte 10: 20 bits sample rate, 3 bits channels - 1, 5 bits bits per sample - 1, 36 bits samples.
  const s = header + 4
  const sampleRateHz = (b[s + 10]! << 12) | (b[s + 11]! << 4) | (b[s + 12]! >> 4)
  const channels = ((b[s + 12]! >> 1) & 0x07) + 1
  const frames = (b[s + 13]! & 0x0f) * 2 ** 32 + b.readUInt32BE(s + 14)
  if (sampleRateHz === 0) throw new AudioHeaderError('FLAC audio with a sample rate of 0 in STREAMINFO')
  if (frames === 0) throw new AudioHeaderError('FLAC audio whose STREAMINFO gives no total sample count')
  return { format: 'flac', sampleRateHz, channels, frames, durationS: frames / sampleRateHz }
}

function isFlacAt(b: Buffer, offset: number): boolean {
  return b.toString('latin1', offset, offset + 4) === 'fLaC'
}

/** Bytes of a leading ID3v2 tag (10-byte header + syncsafe size), 0 without one. */
function id3v2Size(b: Buffer): number {
  if (b.length < 10 || b.toString('latin1', 0, 3) !== 'ID3') return 0
  const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f)
  return 10 + size + ((b[5]! & 0x10) !== 0 ? 10 : 0)
}

/** The audio input of a WAV or FLAC file: its bytes, the name and type it is sent under, its duration. */
export function audioInputOf(bytes: Uint8Array): AudioInput {
  const header = readAudioHeader(bytes)
  return { bytes, ...AUDIO_FILE_TYPES[header.format], durationS: header.durationS }
}
