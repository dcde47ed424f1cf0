import { decode as decodeJpeg, encode as encodeJpeg } from 'jpeg-js'
import { describe, expect, it } from 'vitest'
import { muxMjpegMp4 } from './mp4-mjpeg.ts'

interface Box {
  type: string
  start: number
  size: number
  /** Offset of the payload (after the 8-byte header). */
  body: number
}

// An independent reader: walks boxes by their size fields and fails on any that overruns.
function boxes(bytes: Uint8Array, from: number, to: number): Box[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out: Box[] = []
  let at = from
  while (at < to) {
    const size = view.getUint32(at)
    expect(size).toBeGreaterThanOrEqual(8)
    expect(at + size).toBeLessThanOrEqual(to)
    out.push({ type: String.fromCharCode(...bytes.subarray(at + 4, at + 8)), start: at, size, body: at + 8 })
    at += size
  }
  expect(at).toBe(to)
  return out
}

function child(bytes: Uint8Array, parent: Box, type: string, skip = 0): Box {
  const found = boxes(bytes, parent.body + skip, parent.start + parent.size).filter((b) => b.type === type)
  expect(found).toHaveLength(1)
  return found[0]!
}

function path(bytes: Uint8Array, root: Box, ...types: string[]): Box {
  let box = root
  for (const type of types) box = child(bytes, box, type, type === 'url ' ? 4 : 0)
  return box
}

function frame(seed: number, width: number, height: number): Uint8Array {
  const data = Buffer.alloc(width * height * 4)
  for (let p = 0; p < data.length; p++) data[p] = (p * 31 + seed * 17) & 0xff
  return new Uint8Array(encodeJpeg({ data, width, height }, 80).data)
}

describe('muxMjpegMp4', () => {
  const width = 24
  const height = 16
  const frames = [frame(1, width, height), frame(2, width, height), frame(3, width, height)]
  const mp4 = muxMjpegMp4(frames, { width, height, fps: 30 })
  const view = new DataView(mp4.buffer, mp4.byteOffset, mp4.byteLength)
  const top = boxes(mp4, 0, mp4.length)
  const moov = top.find((b) => b.type === 'moov')!
  const mdat = top.find((b) => b.type === 'mdat')!
  const stbl = path(mp4, moov, 'trak', 'mdia', 'minf', 'stbl')

  it('lays out ftyp, moov and mdat whose sizes add up to the file', () => {
    expect(top.map((b) => b.type)).toEqual(['ftyp', 'moov', 'mdat'])
    expect(String.fromCharCode(...mp4.subarray(8, 12))).toBe('isom')
    expect(mdat.size).toBe(8 + frames.reduce((sum, f) => sum + f.length, 0))
    expect(boxes(mp4, moov.body, moov.start + moov.size).map((b) => b.type)).toEqual(['mvhd', 'trak'])
    const minf = path(mp4, moov, 'trak', 'mdia', 'minf')
    expect(boxes(mp4, minf.body, minf.start + minf.size).map((b) => b.type)).toEqual(['vmhd', 'dinf', 'stbl'])
    expect(boxes(mp4, stbl.body, stbl.start + stbl.size).map((b) => b.type)).toEqual([
      'stsd',
      'stts',
      'stsc',
      'stsz',
      'stco',
    ])
    expect(path(mp4, moov, 'trak', 'mdia', 'minf', 'dinf', 'dref').size).toBe(28)
  })

  it('declares a video handler and the frame size in tkhd and the jpeg sample entry', () => {
    const hdlr = path(mp4, moov, 'trak', 'mdia', 'hdlr')
    expect(String.fromCharCode(...mp4.subarray(hdlr.body + 8, hdlr.body + 12))).toBe('vide')
    const tkhd = path(mp4, moov, 'trak', 'tkhd')
    expect(tkhd.size).toBe(92)
    expect(view.getUint32(tkhd.start + 84)).toBe(width << 16)
    expect(view.getUint32(tkhd.start + 88)).toBe(height << 16)
    const stsd = child(mp4, stbl, 'stsd')
    expect(view.getUint32(stsd.body + 4)).toBe(1)
    const [entry] = boxes(mp4, stsd.body + 8, stsd.start + stsd.size)
    expect(entry!.type).toBe('jpeg')
    expect(entry!.size).toBe(86)
    expect(view.getUint16(entry!.body + 6)).toBe(1)
    expect(view.getUint16(entry!.body + 24)).toBe(width)
    expect(view.getUint16(entry!.body + 26)).toBe(height)
    expect(view.getUint16(entry!.body + 74)).toBe(24)
  })

  it('gives the frame count and a duration of frames / 30 s in every header', () => {
    const mvhd = path(mp4, moov, 'mvhd')
    expect(view.getUint32(mvhd.body + 16) / view.getUint32(mvhd.body + 12)).toBe(0.1)
    const mdhd = path(mp4, moov, 'trak', 'mdia', 'mdhd')
    const timescale = view.getUint32(mdhd.body + 12)
    expect(view.getUint32(mdhd.body + 16) / timescale).toBe(0.1)
    const tkhd = path(mp4, moov, 'trak', 'tkhd')
    expect(view.getUint32(tkhd.body + 20)).toBe(view.getUint32(mvhd.body + 16))
    const stts = child(mp4, stbl, 'stts')
    expect(view.getUint32(stts.body + 4)).toBe(1)
    expect(view.getUint32(stts.body + 8)).toBe(3)
    expect(timescale / view.getUint32(stts.body + 12)).toBe(30)
    const stsc = child(mp4, stbl, 'stsc')
    expect([1, 2, 3, 4].map((k) => view.getUint32(stsc.body + 4 * k))).toEqual([1, 1, 1, 1])
  })

  it('has stsz sizes equal to the JPEG sizes and stco offsets at each JPEG inside mdat', () => {
    const stsz = child(mp4, stbl, 'stsz')
    expect(view.getUint32(stsz.body + 4)).toBe(0)
    expect(view.getUint32(stsz.body + 8)).toBe(3)
    const sizes = frames.map((_, k) => view.getUint32(stsz.body + 12 + 4 * k))
    expect(sizes).toEqual(frames.map((f) => f.length))
    const stco = child(mp4, stbl, 'stco')
    expect(view.getUint32(stco.body + 4)).toBe(3)
    const offsets = frames.map((_, k) => view.getUint32(stco.body + 8 + 4 * k))
    expect(offsets[0]).toBe(mdat.body)
    for (let k = 0; k < frames.length; k++) {
      expect(offsets[k]!).toBeGreaterThanOrEqual(mdat.body)
      expect(offsets[k]! + sizes[k]!).toBeLessThanOrEqual(mdat.start + mdat.size)
      expect([mp4[offsets[k]!], mp4[offsets[k]! + 1]]).toEqual([0xff, 0xd8])
      expect(mp4.subarray(offsets[k]!, offsets[k]! + sizes[k]!)).toEqual(frames[k])
    }
  })

  it('holds frames that decode back to the frame size', () => {
    const stco = child(mp4, stbl, 'stco')
    const stsz = child(mp4, stbl, 'stsz')
    const offset = view.getUint32(stco.body + 8 + 4)
    const decoded = decodeJpeg(mp4.subarray(offset, offset + view.getUint32(stsz.body + 12 + 4)))
    expect([decoded.width, decoded.height]).toEqual([width, height])
  })

  it('refuses no frames and a side past 65535', () => {
    expect(() => muxMjpegMp4([], { width, height, fps: 30 })).toThrow('an MP4 video needs at least one frame')
    expect(() => muxMjpegMp4(frames, { width: 70000, height, fps: 30 })).toThrow(
      'an MP4 video frame must be 1 to 65535 pixels a side (got 70000×16)',
    )
  })
})
