/**
 * A minimal PNG encoder: 8-bit RGB, no interlace, one IDAT compressed with node:zlib. Enough for
 * the figures servebench draws itself, with no image dependency.
 */
import { deflateSync } from 'node:zlib'

/** An RGB raster: `pixels` holds `width * height * 3` bytes, row by row from the top left. */
export interface RgbImage {
  width: number
  height: number
  pixels: Uint8Array
}

// The eight bytes every PNG file starts with.
const PNG_SIGNATURE: Readonly<Uint8Array> = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

/** CRC-32 (ISO 3309, the polynomial PNG and zlib use) of `bytes`, continuing from `crc`. */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return ~c >>> 0
}

/** One chunk: 4-byte big-endian length, type, data, and the CRC of type + data. */
export function pngChunk(type: string, data: Uint8Array): Buffer {
  if (!/^[A-Za-z]{4}$/.test(type)) throw new RangeError(`a PNG chunk type is four letters (got "${type}")`)
  const chunk = Buffer.alloc(12 + data.length)
  chunk.writeUInt32BE(data.length, 0)
  chunk.write(type, 4, 'latin1')
  chunk.set(data, 8)
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length)
  return chunk
}

/**
 * Encodes `image` as a PNG file: IHDR (8-bit truecolour), a `tEXt` chunk per entry of `text`
 * (Latin-1 keyword and value), one IDAT, IEND. Rows use filter 0 (none) or 2 (up), whichever
 * the row compresses better with by a cheap estimate; inflating and undoing them gives the pixels back.
 */
export function encodePng(image: RgbImage, text: Readonly<Record<string, string>> = {}): Buffer {
  const { width, height, pixels } = image
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`a PNG needs a positive integer size (got ${width}×${height})`)
  }
  if (pixels.length !== width * height * 3) {
    throw new RangeError(
      `${width}×${height} RGB pixels take ${width * height * 3} bytes (got ${pixels.length})`,
    )
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // colour type: truecolour
  // bytes 10-12: deflate compression, adaptive filtering, no interlace

  const stride = width * 3
  const raw = Buffer.alloc((stride + 1) * height)
  for (let y = 0; y < height; y++) {
    const row = pixels.subarray(y * stride, (y + 1) * stride)
    const out = (stride + 1) * y
    const up = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : undefined
    // A row equal to the one above becomes all zeros under "up": charts have many of those.
    if (up !== undefined && sumOfDifferences(row, up) < sumOfMagnitudes(row)) {
      raw[out] = 2
      for (let i = 0; i < stride; i++) raw[out + 1 + i] = (row[i]! - up[i]!) & 0xff
    } else {
      raw[out] = 0
      raw.set(row, out + 1)
    }
  }

  const chunks = [Buffer.from(PNG_SIGNATURE), pngChunk('IHDR', header)]
  for (const [keyword, value] of Object.entries(text)) {
    chunks.push(pngChunk('tEXt', Buffer.from(`${keyword}\0${value}`, 'latin1')))
  }
  chunks.push(pngChunk('IDAT', deflateSync(raw, { level: 9 })), pngChunk('IEND', new Uint8Array(0)))
  return Buffer.concat(chunks)
}

// The usual PNG heuristic: the sum of the filtered bytes read as signed values.
function sumOfMagnitudes(row: Uint8Array): number {
  let sum = 0
  for (let i = 0; i < row.length; i++) sum += row[i]! < 128 ? row[i]! : 256 - row[i]!
  return sum
}

function sumOfDifferences(row: Uint8Array, up: Uint8Array): number {
  let sum = 0
  for (let i = 0; i < row.length; i++) {
    const d = (row[i]! - up[i]!) & 0xff
    sum += d < 128 ? d : 256 - d
  }
  return sum
}
