import { inflateSync } from 'node:zlib'

/** One chunk as read from the file, with whether its stored CRC matches its type and data. */
export interface DecodedChunk {
  type: string
  data: Buffer
  crcOk: boolean
}

export interface DecodedPng {
  width: number
  height: number
  bitDepth: number
  colorType: number
  chunks: DecodedChunk[]
  text: Record<string, string>
  /** RGB bytes, row by row. */
  pixels: Uint8Array
  /** The colour at (x, y). */
  at(x: number, y: number): [number, number, number]
}

// An independent bitwise CRC-32 (no table), so the test does not reuse the encoder's.
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

/**
 * Decodes an 8-bit truecolour, non-interlaced PNG the test way: the signature, every chunk and
 * its CRC, IDAT inflated with node:zlib, and all five row filters undone.
 */
export function decodePng(file: Buffer): DecodedPng {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  if (!file.subarray(0, 8).equals(signature)) throw new Error('not a PNG signature')
  const chunks: DecodedChunk[] = []
  let offset = 8
  while (offset < file.length) {
    const length = file.readUInt32BE(offset)
    const type = file.toString('latin1', offset + 4, offset + 8)
    const data = file.subarray(offset + 8, offset + 8 + length)
    const stored = file.readUInt32BE(offset + 8 + length)
    chunks.push({ type, data, crcOk: crc32(file.subarray(offset + 4, offset + 8 + length)) === stored })
    offset += 12 + length
  }
  const header = chunks[0]
  if (header?.type !== 'IHDR') throw new Error('the first chunk is not IHDR')
  const width = header.data.readUInt32BE(0)
  const height = header.data.readUInt32BE(4)
  const bitDepth = header.data[8]!
  const colorType = header.data[9]!
  if (bitDepth !== 8 || colorType !== 2 || header.data[12] !== 0)
    throw new Error('only 8-bit RGB, no interlace')
  const raw = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)))
  const stride = width * 3
  if (raw.length !== (stride + 1) * height)
    throw new Error(`inflated ${raw.length} bytes, expected ${(stride + 1) * height}`)
  const pixels = new Uint8Array(stride * height)
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i]!
      const a = i >= 3 ? pixels[y * stride + i - 3]! : 0
      const b = y > 0 ? pixels[(y - 1) * stride + i]! : 0
      const c = i >= 3 && y > 0 ? pixels[(y - 1) * stride + i - 3]! : 0
      const predictor = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter]
      if (predictor === undefined) throw new Error(`unknown filter ${filter} on row ${y}`)
      pixels[y * stride + i] = (x + predictor) & 0xff
    }
  }
  const text: Record<string, string> = {}
  for (const chunk of chunks.filter((c) => c.type === 'tEXt')) {
    const zero = chunk.data.indexOf(0)
    text[chunk.data.toString('latin1', 0, zero)] = chunk.data.toString('latin1', zero + 1)
  }
  return {
    width,
    height,
    bitDepth,
    colorType,
    chunks,
    text,
    pixels,
    at: (x, y) => {
      const i = (y * width + x) * 3
      return [pixels[i]!, pixels[i + 1]!, pixels[i + 2]!]
    },
  }
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c
  const pa = Math.abs(p - a)
  const pb = Math.abs(p - b)
  const pc = Math.abs(p - c)
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}
