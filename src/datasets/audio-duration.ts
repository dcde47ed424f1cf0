import type { AudioInput } from '../config/records.ts'

/**
 * The duration of an audio file read from its header, with no decoder: WAV from its `fmt ` and
 * `data` chunks, FLAC from its STREAMINFO block, MP3 from its MPEG audio frames.
 * Python decodes every file with soundfile to learn its length; the headers give the same
 * `frames / sample rate`.
 */

/** The formats whose duration servebench reads. */
export type AudioFormat = 'wav' | 'flac' | 'mp3'

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
const AUDIO_FILE_TYPES: Readonly<Record<AudioFormat, { fileName: string; contentType: string }>> = {
  wav: { fileName: 'audio.wav', contentType: 'audio/wav' },
  flac: { fileName: 'audio.flac', contentType: 'audio/flac' },
  mp3: { fileName: 'audio.mp3', contentType: 'audio/mpeg' },
}

/** Why a file's duration could not be read; the message says what the file is. */
export class AudioHeaderError extends Error {}

/**
 * Reads the header of a WAV, FLAC or MP3 file. Throws an {@link AudioHeaderError} naming the
 * format for anything else (Ogg, MP4, AIFF, ...) and for a header that is cut short or gives no
 * length.
 */
export function readAudioHeader(bytes: Uint8Array): AudioHeader {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const format = sniffAudioFormat(view)
  if (format === 'WAV') return readWav(view)
  if (format === 'FLAC') return readFlac(view, id3v2Size(view))
  if (format === 'MP3' && id3v2Size(view) > 0 && isFlacAt(view, id3v2Size(view)))
    return readFlac(view, id3v2Size(view))
  if (format === 'MP3') return readMp3(view, id3v2Size(view))
  throw new AudioHeaderError(
    `${format === 'unknown' ? 'an unknown format' : format} audio; servebench reads the duration of WAV, FLAC and MP3 only`,
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

// MPEG audio frame headers: 11 sync bits, version (2), layer (2), CRC flag, bitrate index (4),
// sample-rate index (2), padding, private, channel mode (2), ... The tables are ISO 11172-3 / 13818-3.
type MpegVersion = 1 | 2 | 2.5
const MP3_BITRATES_KBPS: Readonly<Record<string, readonly number[]>> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
const MP3_SAMPLE_RATES_HZ: Readonly<Record<MpegVersion, readonly number[]>> = {
  1: [44_100, 48_000, 32_000],
  2: [22_050, 24_000, 16_000],
  2.5: [11_025, 12_000, 8000],
}

/** One MPEG audio frame header, decoded. */
interface MpegFrame {
  version: MpegVersion
  layer: 1 | 2 | 3
  sampleRateHz: number
  channels: number
  samplesPerFrame: number
  /** Bytes of the frame, header included. */
  bytes: number
  /** Bytes of Layer III side information, which a Xing/Info header follows. */
  sideInfoBytes: number
  crc: boolean
}

/** The frame header at `offset`; undefined when the bytes there are not one; 'free' for a free-format bitrate. */
function mpegFrameAt(b: Buffer, offset: number): MpegFrame | 'free' | undefined {
  if (offset + 4 > b.length || b[offset] !== 0xff || (b[offset + 1]! & 0xe0) !== 0xe0) return undefined
  const h1 = b[offset + 1]!
  const h2 = b[offset + 2]!
  const versionBits = (h1 >> 3) & 3
  const layerBits = (h1 >> 1) & 3
  const bitrateIndex = h2 >> 4
  const rateIndex = (h2 >> 2) & 3
  if (versionBits === 1 || layerBits === 0 || bitrateIndex === 15 || rateIndex === 3) return undefined
  const version: MpegVersion = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 2.5
  const layer = (4 - layerBits) as 1 | 2 | 3
  if (bitrateIndex === 0) return 'free'
  const bitrateBps = MP3_BITRATES_KBPS[`${version === 1 ? 1 : 2}-${layer}`]![bitrateIndex]! * 1000
  const sampleRateHz = MP3_SAMPLE_RATES_HZ[version][rateIndex]!
  const padding = (h2 >> 1) & 1
  const mono = b[offset + 3]! >> 6 === 3
  const samplesPerFrame = layer === 1 ? 384 : layer === 2 || version === 1 ? 1152 : 576
  const bytes =
    layer === 1
      ? (Math.floor((12 * bitrateBps) / sampleRateHz) + padding) * 4
      : Math.floor((samplesPerFrame / 8) * (bitrateBps / sampleRateHz)) + padding
  const sideInfoBytes = version === 1 ? (mono ? 17 : 32) : mono ? 9 : 17
  return {
    version,
    layer,
    sampleRateHz,
    channels: mono ? 1 : 2,
    samplesPerFrame,
    bytes,
    sideInfoBytes,
    crc: (h1 & 1) === 0,
  }
}

/**
 * MP3 (MPEG-1/2/2.5 Layer I-III) after an optional ID3v2 tag: the frame count of a Xing/Info or
 * VBRI header in the first frame when it has one (VBR files), else the frames walked header by
 * header until the bytes stop being frames (an ID3v1 or APE tag at the end). Duration is frames x
 * samples per frame / sample rate; the encoder delay a LAME tag records (a few ms) is not taken off.
 */
function readMp3(b: Buffer, start: number): AudioHeader {
  // The first frame: a valid header followed by another (or the end, or an ID3v1 tag), so stray 0xFF bytes do not count.
  let offset = start
  let first: MpegFrame | undefined
  for (; offset + 4 <= b.length; offset++) {
    const frame = mpegFrameAt(b, offset)
    if (frame === 'free')
      throw new AudioHeaderError(
        'MP3 audio in free-format bitrate, whose frame lengths the headers do not give',
      )
    if (frame === undefined) continue
    const next = offset + frame.bytes
    if (
      next >= b.length ||
      mpegFrameAt(b, next) !== undefined ||
      b.toString('latin1', next, next + 3) === 'TAG'
    ) {
      first = frame
      break
    }
  }
  if (first === undefined) throw new AudioHeaderError('MP3 audio with no MPEG audio frame')
  const { sampleRateHz, channels, samplesPerFrame } = first
  const tag = vbrTag(b, offset, first)
  let frames = tag.frames ?? 0
  if (tag.frames === undefined) {
    // The tag frame of a Xing/Info header without a frame count is silence, not audio.
    for (let at = tag.found ? offset + first.bytes : offset; at + 4 <= b.length; ) {
      const frame = mpegFrameAt(b, at)
      if (frame === undefined || frame === 'free' || at + frame.bytes > b.length) break
      frames++
      at += frame.bytes
    }
  }
  if (frames === 0) {
    throw new AudioHeaderError(
      tag.found
        ? 'MP3 audio whose Xing/Info or VBRI header counts no frames'
        : 'MP3 audio with no whole MPEG audio frame',
    )
  }
  const samples = frames * samplesPerFrame
  return { format: 'mp3', sampleRateHz, channels, frames: samples, durationS: samples / sampleRateHz }
}

/**
 * A Xing/Info header (after the first frame's side information) or a VBRI header (at byte 36 of
 * it), and the audio frames it counts when it does; the tag's own frame is not among them.
 */
function vbrTag(b: Buffer, offset: number, frame: MpegFrame): { found: boolean; frames?: number } {
  const xing = offset + 4 + (frame.crc ? 2 : 0) + frame.sideInfoBytes
  const xingId = b.toString('latin1', xing, xing + 4)
  if (xingId === 'Xing' || xingId === 'Info') {
    const counted = xing + 12 <= b.length && (b.readUInt32BE(xing + 4) & 1) !== 0
    return counted ? { found: true, frames: b.readUInt32BE(xing + 8) } : { found: true }
  }
  const vbri = offset + 36
  if (b.toString('latin1', vbri, vbri + 4) === 'VBRI' && vbri + 18 <= b.length)
    return { found: true, frames: b.readUInt32BE(vbri + 14) }
  return { found: false }
}

function isFlacAt(b: Buffer, offset: number): boolean {
  return b.toString('latin1', offset, offset + 4) === 'fLaC'
}

/** Bytes of a leading ID3v2 tag (10-byte header + syncsafe size, + 10 with a footer), 0 without one. */
function id3v2Size(b: Buffer): number {
  if (b.length < 10 || b.toString('latin1', 0, 3) !== 'ID3') return 0
  const size = ((b[6]! & 0x7f) << 21) | ((b[7]! & 0x7f) << 14) | ((b[8]! & 0x7f) << 7) | (b[9]! & 0x7f)
  return 10 + size + ((b[5]! & 0x10) !== 0 ? 10 : 0)
}

/** The audio input of a WAV, FLAC or MP3 file: its bytes, the name and type it is sent under, its duration. */
export function audioInputOf(bytes: Uint8Array): AudioInput {
  const header = readAudioHeader(bytes)
  return { bytes, ...AUDIO_FILE_TYPES[header.format], durationS: header.durationS }
}
