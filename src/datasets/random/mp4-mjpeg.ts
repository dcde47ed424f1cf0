/**
 * A minimal MP4 (ISO-BMFF) writer for Motion-JPEG: one video track whose samples are whole JPEG
 * files, one chunk per frame, with `moov` ahead of `mdat` so a reader needs no seek back.
 *
 * Why Motion-JPEG in a `jpeg` sample entry: Python's `random-mm` writes its synthetic videos with
 * OpenCV's `mp4v` (MPEG-4 Part 2) encoder, which servebench cannot reproduce without a video
 * codec. vLLM reads videos through OpenCV's FFmpeg backend (or PyAV, also libavformat), and
 * FFmpeg's MOV/MP4 demuxer maps the visual sample-entry code `jpeg` (QuickTime Photo-JPEG) to its
 * MJPEG decoder whatever the file's brand, as it does `mjpa`. `jpeg` is the code FFmpeg's own
 * muxer writes for MJPEG in MOV, and each sample is a plain baseline JFIF file (what jpeg-js
 * writes), which the MJPEG decoder takes as is; `mjpa` (Motion-JPEG format A) promises an APP1
 * marker with field offsets that these frames do not carry.
 */

/** How a Motion-JPEG MP4 is laid out. */
export interface MjpegMp4Options {
  /** Frame width in pixels (every frame's). */
  width: number
  /** Frame height in pixels. */
  height: number
  /** Frames per second. */
  fps: number
}

/** The movie header's time scale (ticks per second), as FFmpeg writes it. */
const MOVIE_TIMESCALE = 1000
/** Ticks per frame in the media time scale (`fps × 512` ticks per second: FFmpeg's 15360 at 30 fps). */
const TICKS_PER_FRAME = 512
/** The unity transform matrix of `mvhd` and `tkhd` (16.16 / 2.30 fixed point). */
const UNITY_MATRIX = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000]

/**
 * Muxes JPEG frames (each a whole JPEG file, all of `width × height`) into an MP4 file of
 * `frames.length` samples at `fps`. Throws a `RangeError` for no frames, a side outside 1..65535
 * or a file past 4 GiB (the 32-bit chunk offsets of `stco`).
 */
export function muxMjpegMp4(frames: readonly Uint8Array[], options: MjpegMp4Options): Uint8Array {
  const { width, height, fps } = options
  if (frames.length === 0) throw new RangeError('an MP4 video needs at least one frame')
  if (!(width >= 1 && width <= 0xffff && height >= 1 && height <= 0xffff)) {
    throw new RangeError(`an MP4 video frame must be 1 to 65535 pixels a side (got ${width}×${height})`)
  }
  const mediaTimescale = fps * TICKS_PER_FRAME
  const mediaDuration = frames.length * TICKS_PER_FRAME
  const movieDuration = Math.round((frames.length * MOVIE_TIMESCALE) / fps)
  const ftyp = box('ftyp', fourcc('isom'), u32(0x200), fourcc('isom'), fourcc('iso2'), fourcc('mp41'))
  // The chunk offsets depend on moov's size, which does not depend on their values: build moov
  // once with zero offsets to measure it, then with the real ones.
  const moovWith = (offsets: readonly number[]) =>
    box(
      'moov',
      mvhd(movieDuration),
      box(
        'trak',
        tkhd(movieDuration, width, height),
        box(
          'mdia',
          mdhd(mediaTimescale, mediaDuration),
          hdlr(),
          box('minf', vmhd(), dinf(), stbl(frames, offsets, width, height)),
        ),
      ),
    )
  const moovSize = moovWith(frames.map(() => 0)).length
  const mdatPayload = frames.reduce((sum, f) => sum + f.length, 0)
  const total = ftyp.length + moovSize + 8 + mdatPayload
  if (total > 0xffff_ffff)
    throw new RangeError(`an MP4 video of ${total} bytes is past the 4 GiB of stco offsets`)
  const offsets: number[] = []
  let at = ftyp.length + moovSize + 8
  for (const frame of frames) {
    offsets.push(at)
    at += frame.length
  }
  return concat([ftyp, moovWith(offsets), u32(8 + mdatPayload), fourcc('mdat'), ...frames])
}

function mvhd(duration: number): Uint8Array {
  return fullBox(
    'mvhd',
    0,
    0,
    u32(0),
    u32(0),
    u32(MOVIE_TIMESCALE),
    u32(duration),
    u32(0x0001_0000), // rate 1.0
    u16(0x0100), // volume 1.0
    new Uint8Array(10),
    ...UNITY_MATRIX.map(u32),
    new Uint8Array(24),
    u32(2), // next track id
  )
}

function tkhd(duration: number, width: number, height: number): Uint8Array {
  // Flags 3: the track is enabled and part of the presentation.
  return fullBox(
    'tkhd',
    0,
    3,
    u32(0),
    u32(0),
    u32(1), // track id
    u32(0),
    u32(duration),
    new Uint8Array(8),
    u16(0), // layer
    u16(0), // alternate group
    u16(0), // volume: 0 for video
    u16(0),
    ...UNITY_MATRIX.map(u32),
    u32(width * 0x1_0000),
    u32(height * 0x1_0000),
  )
}

function mdhd(timescale: number, duration: number): Uint8Array {
  // Language 'und' packed as three 5-bit letters.
  return fullBox('mdhd', 0, 0, u32(0), u32(0), u32(timescale), u32(duration), u16(0x55c4), u16(0))
}

function hdlr(): Uint8Array {
  return fullBox('hdlr', 0, 0, u32(0), fourcc('vide'), new Uint8Array(12), ascii('VideoHandler\0'))
}

function vmhd(): Uint8Array {
  return fullBox('vmhd', 0, 1, new Uint8Array(8))
}

function dinf(): Uint8Array {
  // One self-contained data reference (flag 1): the samples are in this file.
  return box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1)))
}

function stbl(
  frames: readonly Uint8Array[],
  offsets: readonly number[],
  width: number,
  height: number,
): Uint8Array {
  const n = frames.length
  return box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), jpegSampleEntry(width, height)),
    fullBox('stts', 0, 0, u32(1), u32(n), u32(TICKS_PER_FRAME)),
    // Every chunk holds one sample of description 1.
    fullBox('stsc', 0, 0, u32(1), u32(1), u32(1), u32(1)),
    fullBox('stsz', 0, 0, u32(0), u32(n), ...frames.map((f) => u32(f.length))),
    fullBox('stco', 0, 0, u32(n), ...offsets.map(u32)),
  )
}

function jpegSampleEntry(width: number, height: number): Uint8Array {
  const name = new Uint8Array(32)
  const label = ascii('Photo - JPEG')
  name[0] = label.length
  name.set(label, 1)
  return box(
    'jpeg',
    new Uint8Array(6),
    u16(1), // data reference index
    new Uint8Array(16), // version, revision, vendor, temporal and spatial quality
    u16(width),
    u16(height),
    u32(0x0048_0000), // 72 dpi
    u32(0x0048_0000),
    u32(0),
    u16(1), // frames per sample
    name,
    u16(0x0018), // depth: 24-bit colour
    u16(0xffff), // no colour table
  )
}

function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const size = 8 + parts.reduce((sum, p) => sum + p.length, 0)
  return concat([u32(size), fourcc(type), ...parts])
}

function fullBox(type: string, version: number, flags: number, ...parts: Uint8Array[]): Uint8Array {
  return box(type, u32(((version & 0xff) << 24) | (flags & 0xff_ffff)), ...parts)
}

function u32(value: number): Uint8Array {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setUint32(0, value >>> 0)
  return out
}

function u16(value: number): Uint8Array {
  const out = new Uint8Array(2)
  new DataView(out.buffer).setUint16(0, value)
  return out
}

function fourcc(code: string): Uint8Array {
  return ascii(code)
}

function ascii(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0))
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}
