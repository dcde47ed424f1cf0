/** Small WAV and FLAC files for the audio dataset tests, built byte by byte. */

/** A 16-bit PCM WAV of `frames` silent frames (per channel). */
export function wavFile(frames: number, sampleRateHz: number, channels = 1): Buffer {
  const dataBytes = frames * channels * 2
  const out = Buffer.alloc(44 + dataBytes)
  out.write('RIFF', 0, 'latin1')
  out.writeUInt32LE(36 + dataBytes, 4)
  out.write('WAVEfmt ', 8, 'latin1')
  out.writeUInt32LE(16, 16)
  out.writeUInt16LE(1, 20)
  out.writeUInt16LE(channels, 22)
  out.writeUInt32LE(sampleRateHz, 24)
  out.writeUInt32LE(sampleRateHz * channels * 2, 28)
  out.writeUInt16LE(channels * 2, 32)
  out.writeUInt16LE(16, 34)
  out.write('data', 36, 'latin1')
  out.writeUInt32LE(dataBytes, 40)
  return out
}

/**
 * A FLAC file: the `fLaC` marker, a STREAMINFO block (last metadata block) with the sample rate,
 * channels, 16 bits per sample and `totalSamples`, then a few bytes standing in for the frames.
 */
export function flacFile(sampleRateHz: number, totalSamples: number, channels = 1): Buffer {
  const info = Buffer.alloc(34)
  info.writeUInt16BE(4096, 0) // min block size
  info.writeUInt16BE(4096, 2) // max block size
  // bytes 10..17: 20 bits rate | 3 bits channels-1 | 5 bits bps-1 | 36 bits total samples
  const bitsPerSample = 16
  info[10] = (sampleRateHz >> 12) & 0xff
  info[11] = (sampleRateHz >> 4) & 0xff
  info[12] = ((sampleRateHz & 0x0f) << 4) | ((channels - 1) << 1) | ((bitsPerSample - 1) >> 4)
  info[13] = (((bitsPerSample - 1) & 0x0f) << 4) | Math.floor(totalSamples / 2 ** 32)
  info.writeUInt32BE(totalSamples % 2 ** 32, 14)
  const header = Buffer.from([0x80, 0, 0, 34]) // last block, type 0 (STREAMINFO), length 34
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), header, info, Buffer.from([0xff, 0xf8, 0x69, 0x08])])
}

/** Options of {@link mp3File}: MPEG-1 Layer III, 128 kb/s, 48 kHz stereo unless told. */
export interface Mp3Options {
  frames: number
  version?: 1 | 2 | 2.5
  bitrateKbps?: number
  sampleRateHz?: number
  mono?: boolean
  /** Bytes of ID3v2 tag body before the first frame. */
  id3Bytes?: number
  /** A first (silent) frame holding a Xing header that counts this many frames, or VBRI. */
  vbrTag?: { kind: 'Xing' | 'Info' | 'VBRI'; frames: number }
}

const BITRATES_L3 = {
  1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
}
const RATES = { 1: [44_100, 48_000, 32_000], 2: [22_050, 24_000, 16_000], 2.5: [11_025, 12_000, 8000] }

/**
 * An MP3 of `frames` Layer III frames with silent (zero) payloads, each a 4-byte header and the
 * bytes its bitrate gives (no padding), optionally behind an ID3v2 tag and a Xing/Info/VBRI frame.
 */
export function mp3File(options: Mp3Options): Buffer {
  const version = options.version ?? 1
  const bitrateKbps = options.bitrateKbps ?? 128
  const sampleRateHz = options.sampleRateHz ?? 48_000
  const bitrateIndex = BITRATES_L3[version === 1 ? 1 : 2].indexOf(bitrateKbps)
  const rateIndex = RATES[version].indexOf(sampleRateHz)
  if (bitrateIndex < 1 || rateIndex < 0) throw new Error('mp3File: no such bitrate or sample rate')
  const versionBits = version === 1 ? 3 : version === 2 ? 2 : 0
  const header = Buffer.from([
    0xff,
    0xe0 | (versionBits << 3) | (1 << 1) | 1, // Layer III, no CRC
    (bitrateIndex << 4) | (rateIndex << 2),
    options.mono ? 0xc0 : 0,
  ])
  const frameBytes = Math.floor(((version === 1 ? 144 : 72) * bitrateKbps * 1000) / sampleRateHz)
  const frame = (): Buffer => {
    const out = Buffer.alloc(frameBytes)
    header.copy(out)
    return out
  }
  const parts: Buffer[] = []
  if (options.id3Bytes !== undefined) {
    const size = options.id3Bytes
    const id3 = Buffer.from([
      0x49,
      0x44,
      0x33,
      4,
      0,
      0,
      (size >> 21) & 0x7f,
      (size >> 14) & 0x7f,
      (size >> 7) & 0x7f,
      size & 0x7f,
    ])
    parts.push(id3, Buffer.alloc(size))
  }
  if (options.vbrTag !== undefined) {
    const tag = frame()
    const { kind, frames } = options.vbrTag
    const sideInfo = version === 1 ? (options.mono ? 17 : 32) : options.mono ? 9 : 17
    const at = kind === 'VBRI' ? 36 : 4 + sideInfo
    tag.write(kind, at, 'latin1')
    if (kind === 'VBRI') tag.writeUInt32BE(frames, at + 14)
    else {
      tag.writeUInt32BE(1, at + 4) // flags: frame count present
      tag.writeUInt32BE(frames, at + 8)
    }
    parts.push(tag)
  }
  for (let i = 0; i < options.frames; i++) parts.push(frame())
  return Buffer.concat(parts)
}
