import { inflateSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { decodePng } from '../../../test/png-decode.ts'
import { crc32, encodePng, pngChunk } from './png.ts'

describe('crc32', () => {
  it('gives the standard check values', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926)
    expect(crc32(Buffer.from('IEND'))).toBe(0xae426082)
    expect(crc32(new Uint8Array(0))).toBe(0)
    // Continuing from a previous CRC equals one pass over the concatenation.
    expect(crc32(Buffer.from('6789'), crc32(Buffer.from('12345')))).toBe(0xcbf43926)
  })
})

describe('encodePng', () => {
  const image = {
    width: 3,
    height: 3,
    // Row 1 repeats row 0, so it is written with the "up" filter.
    pixels: Uint8Array.from(
      [
        [255, 0, 0, 0, 255, 0, 0, 0, 255],
        [255, 0, 0, 0, 255, 0, 0, 0, 255],
        [10, 20, 30, 200, 100, 50, 255, 255, 255],
      ].flat(),
    ),
  }

  it('writes a PNG that decodes back to the same pixels, with valid CRCs', () => {
    const file = encodePng(image, { Software: 'servebench' })
    const png = decodePng(file)
    expect(png.chunks.map((c) => c.type)).toEqual(['IHDR', 'tEXt', 'IDAT', 'IEND'])
    expect(png.chunks.every((c) => c.crcOk)).toBe(true)
    expect([png.width, png.height, png.bitDepth, png.colorType]).toEqual([3, 3, 8, 2])
    expect(png.text).toEqual({ Software: 'servebench' })
    expect(Buffer.from(png.pixels)).toEqual(Buffer.from(image.pixels))
    expect(png.at(1, 2)).toEqual([200, 100, 50])
    const idat = png.chunks.find((c) => c.type === 'IDAT')!
    const raw = inflateSync(idat.data)
    expect([raw[0], raw[10], raw[20]]).toEqual([0, 2, 0])
    // The "up" row of an identical row is all zeros.
    expect([...raw.subarray(11, 20)]).toEqual(new Array(9).fill(0))
  })

  it('refuses a size that does not match the pixels, and a bad chunk type', () => {
    expect(() => encodePng({ width: 2, height: 2, pixels: new Uint8Array(11) })).toThrow(
      new RangeError('2×2 RGB pixels take 12 bytes (got 11)'),
    )
    expect(() => encodePng({ width: 0, height: 2, pixels: new Uint8Array(0) })).toThrow(
      new RangeError('a PNG needs a positive integer size (got 0×2)'),
    )
    expect(() => pngChunk('IDAT1', new Uint8Array(0))).toThrow(
      new RangeError('a PNG chunk type is four letters (got "IDAT1")'),
    )
  })

  it('stores the chunk length, type and CRC big-endian', () => {
    const chunk = pngChunk('tEXt', Buffer.from('a\0b'))
    expect(chunk.readUInt32BE(0)).toBe(3)
    expect(chunk.toString('latin1', 4, 8)).toBe('tEXt')
    expect(chunk.readUInt32BE(11)).toBe(crc32(Buffer.from('tEXta\0b', 'latin1')))
  })
})
