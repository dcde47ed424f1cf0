import { describe, expect, it } from 'vitest'
import { flacFile, wavFile } from '../../test/audio-fixtures.ts'
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
      [Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.alloc(20)]), 'MP3'],
      [Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0]), 'MP3'],
      [Buffer.from('OggS\0\x02', 'latin1'), 'Ogg'],
      [Buffer.from('\0\0\0\x20ftypM4A ', 'latin1'), 'MP4'],
      [Buffer.from('hello world', 'latin1'), 'an unknown format'],
    ]
    for (const [bytes, name] of cases) {
      expect(() => readAudioHeader(bytes)).toThrow(
        new AudioHeaderError(`${name} audio; servebench reads the duration of WAV and FLAC only`),
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
  })
})
