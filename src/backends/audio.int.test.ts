import { describe, expect, it } from 'vitest'
import { flacFile } from '../../test/audio-fixtures.ts'
import { startHttpServer } from '../../test/server-helpers.ts'
import { AUDIO_TOKENS_PER_S, audioBackend, audioDurationS, buildAudioForm } from './audio.ts'
import { HttpClient } from './http.ts'
import type { BackendRequest } from './types.ts'
import { encodeWav, SYNTH_SAMPLE_RATE_HZ, synthesizeWav } from './wav.ts'

const request: BackendRequest = {
  url: 'http://127.0.0.1:1/v1/audio/transcriptions',
  requestId: 'r-0',
  model: 'whisper',
  prompt: 'ignored',
  promptLen: 100,
  outputLen: 32,
  ignoreEos: true,
  extraBody: { temperature: 0, vad_config: { enabled: true } },
  headers: {},
}

describe('WAV encoder', () => {
  it('writes a 44-byte PCM header and little-endian samples', () => {
    const wav = Buffer.from(encodeWav(Int16Array.from([1, -2, 300]), 8000))
    expect(wav.length).toBe(44 + 6)
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF')
    expect(wav.readUInt32LE(4)).toBe(36 + 6)
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ')
    expect(wav.readUInt16LE(20)).toBe(1) // PCM
    expect(wav.readUInt16LE(22)).toBe(1) // mono
    expect(wav.readUInt32LE(24)).toBe(8000)
    expect(wav.readUInt32LE(28)).toBe(16000) // byte rate
    expect(wav.readUInt16LE(34)).toBe(16)
    expect(wav.toString('ascii', 36, 40)).toBe('data')
    expect(wav.readUInt32LE(40)).toBe(6)
    expect([wav.readInt16LE(44), wav.readInt16LE(46), wav.readInt16LE(48)]).toEqual([1, -2, 300])
  })

  it('synthesizes the requested duration at 16 kHz', () => {
    const wav = Buffer.from(synthesizeWav(1.5))
    expect(wav.readUInt32LE(40)).toBe(1.5 * SYNTH_SAMPLE_RATE_HZ * 2)
  })
})

describe('openai-audio form', () => {
  it('maps the prompt length to audio seconds at 50 tokens per second', () => {
    expect(AUDIO_TOKENS_PER_S).toBe(50)
    expect(audioDurationS(100)).toBe(2)
    expect(audioDurationS(0)).toBe(1 / SYNTH_SAMPLE_RATE_HZ)
  })

  it('sends the WAV file part, then Python-style string fields in order', () => {
    const form = buildAudioForm(request, synthesizeWav(0.01))
    const boundary = /boundary=(.+)$/.exec(form.contentType)![1]!
    expect(form.contentType.startsWith('multipart/form-data; boundary=')).toBe(true)
    const text = Buffer.from(form.body).toString('latin1')
    const parts = text.split(`--${boundary}`).slice(1, -1)
    const names = parts.map((p) => /name="([^"]+)"/.exec(p)![1])
    expect(names).toEqual([
      'file',
      'model',
      'max_completion_tokens',
      'stream',
      'language',
      'stream_include_usage',
      'stream_continuous_usage_stats',
      'ignore_eos',
      'temperature',
      'vad_config',
    ])
    expect(parts[0]).toContain('filename="audio.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF')
    const value = (name: string): string => {
      const part = parts[names.indexOf(name)]!
      return part.slice(part.indexOf('\r\n\r\n') + 4, -2)
    }
    expect(value('model')).toBe('whisper')
    expect(value('max_completion_tokens')).toBe('32')
    expect(value('stream')).toBe('True')
    expect(value('language')).toBe('en')
    expect(value('ignore_eos')).toBe('True')
    expect(value('temperature')).toBe('0')
    expect(value('vad_config')).toBe('{"enabled":true}')
  })
})

describe('openai-audio with a dataset file', () => {
  const flac = flacFile(16_000, 40_000)
  const audio = { bytes: flac, fileName: 'audio.flac', contentType: 'audio/flac', durationS: 2.5 }

  it("sends the dataset's bytes under its own file name and type", () => {
    const form = buildAudioForm({ ...request, audio }, audio)
    const text = Buffer.from(form.body).toString('latin1')
    expect(text).toContain(
      `name="file"; filename="audio.flac"\r\nContent-Type: audio/flac\r\n\r\n${flac.toString('latin1')}\r\n`,
    )
  })

  it('posts the file to a server and reports its duration as input audio', async () => {
    let received = Buffer.alloc(0)
    let contentType = ''
    const server = await startHttpServer((req, res) => {
      contentType = req.headers['content-type'] ?? ''
      const chunks: Buffer[] = []
      req.on('data', (chunk: Buffer) => chunks.push(chunk))
      req.on('end', () => {
        received = Buffer.concat(chunks)
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.write('data: {"choices":[{"delta":{"content":"hello"}}]}\n\n')
        res.write('data: {"choices":[{"delta":{"content":" world"}}]}\n\n')
        res.write('data: {"choices":[],"usage":{"prompt_tokens":125,"completion_tokens":2}}\n\n')
        res.end('data: [DONE]\n\n')
      })
    })
    const client = new HttpClient({ connections: 1 })
    try {
      const output = await audioBackend.send(
        { ...request, url: `${server.url}/v1/audio/transcriptions`, audio, extraBody: {} },
        client,
      )
      expect(output.success).toBe(true)
      expect(output.generatedText).toBe('hello world')
      expect(output.inputAudioDurationS).toBe(2.5)
      expect(contentType).toMatch(/^multipart\/form-data; boundary=/)
      const body = received.toString('latin1')
      expect(body).toContain('filename="audio.flac"\r\nContent-Type: audio/flac')
      expect(received.includes(flac)).toBe(true)
      expect(body).not.toContain('RIFF')
    } finally {
      await client.close()
      await server.close()
    }
  })
})
