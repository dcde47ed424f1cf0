import { describe, expect, it } from 'vitest'
import { flacFile, mp3File, wavFile } from '../../../test/audio-fixtures.ts'
import { SimHttpError } from './http.ts'
import { audioDurationS } from './transcription.ts'

describe('sim audioDurationS', () => {
  it('reads WAV and FLAC headers', () => {
    expect(audioDurationS(wavFile(8000, 16_000))).toBe(0.5)
    expect(audioDurationS(flacFile(16_000, 32_000))).toBe(2)
  })

  it('reads MP3: walked CBR frames, behind an ID3v2 tag, or a Xing/Info frame count', () => {
    expect(audioDurationS(mp3File({ frames: 100 }))).toBe(2.4)
    expect(audioDurationS(mp3File({ frames: 50, id3Bytes: 300 }))).toBe(1.2)
    expect(
      audioDurationS(mp3File({ frames: 250, version: 2, bitrateKbps: 32, sampleRateHz: 16_000, mono: true })),
    ).toBe(9)
    expect(audioDurationS(mp3File({ frames: 3, vbrTag: { kind: 'Info', frames: 1000 } }))).toBe(24)
  })

  it('answers 400 for other files, naming the formats it reads', () => {
    expect(() => audioDurationS(Buffer.from('OggS\0\0\0\0\0\0\0\0', 'latin1'))).toThrow(
      new SimHttpError(
        400,
        'file must be a WAV, FLAC or MP3 file (no RIFF/WAVE, fLaC, ID3 or MPEG frame header)',
        'file',
      ),
    )
    expect(() => audioDurationS(Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.alloc(20)]))).toThrow(
      'file: MP3 file without an MPEG Layer III frame',
    )
  })
})
