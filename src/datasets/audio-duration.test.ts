import { describe, expect, it } from 'vitest'
import { flacFile, mp3File, wavFile } from '../../test/audio-fixtures.ts'
import { AudioHeaderError, audioInputOf, readAudioHeader, sniffAudioFormat } from './audio-duration.ts'

describe('readAudioHeader', () => {
  it('reads a PCM WAV: frames from the data size over the block align, duration over the rate', () => {
    const header = readAudioHeader(wavFile(24_000, 16_000, 2))
    expect(header).toEqual({
      format: 'wav',
      sampleRateHz: 16_000,
      channels: 2,
      frames: 24_000,
      durationS: 1.5,
    })
  })

  it('skips chunks before fmt and data (LIST) and stops the data at the end of the file', () => {
    const wav = wavFile(8000, 8000)
    const list = Buffer.concat([
      Buffer.from('LIST', 'latin1'),
      Buffer.from([3, 0, 0, 0]),
      Buffer.from('abc\0'),
    ])
    const withList = Buffer.concat([wav.subarray(0, 12), list, wav.subarray(12)])
    expect(readAudioHeader(withList).durationS).toBe(1)
    // A streamed WAV writes 0xFFFFFFFF as the data size: the bytes present count.
    const streamed = Buffer.from(wavFile(4000, 8000))
    streamed.writeUInt32LE(0xffffffff, 40)
    expect(readAudioHeader(streamed).durationS).toBe(0.5)
  })

  it('reads FLAC STREAMINFO: 20-bit sample rate, channels and 36-bit total samples', () => {
    expect(readAudioHeader(flacFile(16_000, 56_000))).toEqual({
      format: 'flac',
      sampleRateHz: 16_000,
      channels: 1,
      frames: 56_000,
      durationS: 3.5,
    })
    const stereo = readAudioHeader(flacFile(44_100, 2 ** 32 + 44_100, 2))
    expect(stereo.channels).toBe(2)
    expect(stereo.frames).toBe(2 ** 32 + 44_100)
    expect(stereo.durationS).toBeCloseTo((2 ** 32 + 44_100) / 44_100, 9)
  })

  it('reads a FLAC behind an ID3v2 tag', () => {
    const id3 = Buffer.concat([
      Buffer.from('ID3', 'latin1'),
      Buffer.from([4, 0, 0, 0, 0, 0, 5]),
      Buffer.alloc(5),
    ])
    expect(readAudioHeader(Buffer.concat([id3, flacFile(8000, 4000)])).durationS).toBe(0.5)
  })

  it('names the format it cannot time', () => {
    const cases: Array<[Buffer, string]> = [
      [Buffer.from('OggS\0\x02', 'latin1'), 'Ogg'],
      [Buffer.from('\0\0\0\x20ftypM4A ', 'latin1'), 'MP4'],
      [Buffer.from('hello world', 'latin1'), 'an unknown format'],
    ]
    for (const [bytes, name] of cases) {
      expect(() => readAudioHeader(bytes)).toThrow(
        new AudioHeaderError(`${name} audio; servebench reads the duration of WAV, FLAC and MP3 only`),
      )
    }
    expect(sniffAudioFormat(new Uint8Array())).toBe('unknown')
  })

  it('rejects WAV and FLAC headers that give no length', () => {
    expect(() => readAudioHeader(wavFile(10, 8000).subarray(0, 36))).toThrow('WAV audio with no data chunk')
    expect(() => readAudioHeader(flacFile(16_000, 0))).toThrow(
      'FLAC audio whose STREAMINFO gives no total sample count',
    )
    expect(() => readAudioHeader(flacFile(16_000, 10).subarray(0, 20))).toThrow(
      'FLAC audio cut short before its STREAMINFO block',
    )
  })
})

describe('readAudioHeader on MP3', () => {
  it('walks CBR frames: MPEG-1 Layer III, 1152 samples a frame', () => {
    // 128 kb/s at 48 kHz: 144 * 128000 / 48000 = 384 bytes a frame; 100 frames = 2.4 s.
    const mp3 = mp3File({ frames: 100 })
    expect(mp3.length).toBe(38_400)
    expect(readAudioHeader(mp3)).toEqual({
      format: 'mp3',
      sampleRateHz: 48_000,
      channels: 2,
      frames: 115_200,
      durationS: 2.4,
    })
  })

  it('skips an ID3v2 tag and stops at trailing bytes that are not frames (an ID3v1 tag)', () => {
    const tagged = Buffer.concat([
      mp3File({ frames: 50, id3Bytes: 1000 }),
      Buffer.concat([Buffer.from('TAG', 'latin1'), Buffer.alloc(125)]),
    ])
    expect(sniffAudioFormat(tagged)).toBe('MP3')
    expect(readAudioHeader(tagged).durationS).toBe(1.2)
    const single = Buffer.concat([mp3File({ frames: 1 }), Buffer.from('TAG', 'latin1'), Buffer.alloc(125)])
    expect(readAudioHeader(single).durationS).toBe(0.024)
  })

  it('walks MPEG-2 Layer III (576 samples a frame) and mono', () => {
    // 32 kb/s at 16 kHz: 72 * 32000 / 16000 = 144 bytes a frame; 250 frames = 9 s.
    const mp3 = mp3File({ frames: 250, version: 2, bitrateKbps: 32, sampleRateHz: 16_000, mono: true })
    expect(readAudioHeader(mp3)).toMatchObject({ sampleRateHz: 16_000, channels: 1, durationS: 9 })
    const v25 = mp3File({ frames: 100, version: 2.5, bitrateKbps: 8, sampleRateHz: 8000, mono: true })
    expect(readAudioHeader(v25).durationS).toBe(7.2)
  })

  it('takes the frame count of a Xing, Info or VBRI header over the frames present (VBR)', () => {
    // The file holds 3 frames after its tag frame; the tag counts 1000 (24 s at 48 kHz).
    for (const kind of ['Xing', 'Info', 'VBRI'] as const) {
      const mp3 = mp3File({ frames: 3, vbrTag: { kind, frames: 1000 } })
      expect(readAudioHeader(mp3).durationS).toBe(24)
    }
    const mono = mp3File({
      frames: 3,
      mono: true,
      version: 2,
      bitrateKbps: 32,
      sampleRateHz: 16_000,
      vbrTag: { kind: 'Xing', frames: 500 },
    })
    expect(readAudioHeader(mono).durationS).toBe(18)
  })

  it('rejects MP3 it cannot time, naming why', () => {
    expect(() => readAudioHeader(Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.alloc(20)]))).toThrow(
      new AudioHeaderError('MP3 audio with no MPEG audio frame'),
    )
    expect(() => readAudioHeader(Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0]))).toThrow(
      new AudioHeaderError('MP3 audio with no whole MPEG audio frame'),
    )
    expect(() => readAudioHeader(Buffer.from([0xff, 0xfb, 0x00, 0x64, 0, 0]))).toThrow(
      new AudioHeaderError('MP3 audio in free-format bitrate, whose frame lengths the headers do not give'),
    )
    expect(() => readAudioHeader(mp3File({ frames: 2, vbrTag: { kind: 'Xing', frames: 0 } }))).toThrow(
      new AudioHeaderError('MP3 audio whose Xing/Info or VBRI header counts no frames'),
    )
  })
})

describe('audioInputOf', () => {
  it('names the file by its format and keeps the bytes', () => {
    const flac = flacFile(16_000, 8000)
    expect(audioInputOf(flac)).toEqual({
      bytes: flac,
      fileName: 'audio.flac',
      contentType: 'audio/flac',
      durationS: 0.5,
    })
    expect(audioInputOf(wavFile(16_000, 16_000))).toMatchObject({
      fileName: 'audio.wav',
      contentType: 'audio/wav',
      durationS: 1,
    })
    expect(audioInputOf(mp3File({ frames: 10 }))).toMatchObject({
      fileName: 'audio.mp3',
      contentType: 'audio/mpeg',
      durationS: 0.24,
    })
  })
})
