import { describe, expect, it } from 'vitest'
import { mp3File, wavFile } from '../../test/audio-fixtures.ts'
import { backendRequest } from '../../test/backends/backend-request.ts'
import { startHttpServer } from '../../test/server-helpers.ts'
import { audioInputOf } from '../datasets/audio-duration.ts'
import { chatBackend, inputAudioPart } from './chat.ts'
import { HttpClient } from './http.ts'

describe('openai-chat with a dataset audio file', () => {
  it("sends Python's input_audio part after the text: the file as base64, its format", async () => {
    const wav = wavFile(8000, 16_000)
    const bodies: unknown[] = []
    const server = await startHttpServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')))
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(
          'data: {"choices":[{"delta":{"content":"hi"}}]}\n\n' +
            'data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":1}}\n\ndata: [DONE]\n\n',
        )
      })
    })
    const client = new HttpClient({ connections: 1 })
    try {
      const output = await chatBackend.send(
        backendRequest(`${server.url}/v1/chat/completions`, {
          model: 'qwen2-audio',
          prompt: 'Transcribe the audio.',
          outputLen: 16,
          audio: audioInputOf(wav),
        }),
        client,
      )
      expect(output.success).toBe(true)
      // Python's chat request has no audio duration: rtfx stays 0.
      expect(output.inputAudioDurationS).toBeUndefined()
    } finally {
      await client.close()
      await server.close()
    }
    expect(bodies).toEqual([
      {
        model: 'qwen2-audio',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Transcribe the audio.' },
              { type: 'input_audio', input_audio: { data: wav.toString('base64'), format: 'wav' } },
            ],
          },
        ],
        max_completion_tokens: 16,
        stream: true,
        stream_options: { include_usage: true },
      },
    ])
  })

  it('names an MP3 file by its format', () => {
    const mp3 = mp3File({ frames: 4 })
    expect(inputAudioPart(audioInputOf(mp3))).toEqual({
      type: 'input_audio',
      input_audio: { data: mp3.toString('base64'), format: 'mp3' },
    })
  })
})
