import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect } from 'vitest'
import { runCli, test } from './helpers.ts'

interface ChatBody {
  model: string
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>
  max_completion_tokens: number
  stream: boolean
  ignore_eos?: boolean
}

// A pass-through to the simulator that keeps each chat body, so the test sees what was sent.
async function recordingProxy(target: string): Promise<{ url: string; bodies: ChatBody[]; server: Server }> {
  const bodies: ChatBody[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      if (req.url === '/v1/chat/completions') bodies.push(JSON.parse(body.toString('utf8')) as ChatBody)
      const upstream = httpRequest(
        `${target}${req.url}`,
        { method: req.method, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers)
          up.pipe(res)
        },
      )
      upstream.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server }
}

const MM_ARGS = [
  '--backend',
  'openai-chat',
  '--dataset-name',
  'random-mm',
  '--tokenizer',
  'cl100k_base',
  '--random-input-len',
  '32',
  '--random-output-len',
  '8',
  '--random-mm-base-items-per-request',
  '2',
  '--random-mm-bucket-config',
  '{(24, 40, 1): 0.5, (16, 16, 1): 0.5, (720, 1280, 16): 0.0}',
  '--num-prompts',
  '6',
  '--disable-tqdm',
]

describe('servebench serve --dataset-name random-mm', () => {
  test('sends the text part, then the image parts, to the simulator; every request succeeds', async ({
    sim,
  }) => {
    const proxy = await recordingProxy(sim.url)
    try {
      const run = await runCli(['serve', '--base-url', proxy.url, ...MM_ARGS])
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^Successful requests: +6 *$/m)
      const bodies = proxy.bodies.filter((b) => b.max_completion_tokens === 8)
      expect(bodies).toHaveLength(6)
      for (const body of bodies) {
        expect(body.stream).toBe(true)
        expect(body.ignore_eos).toBe(true)
        expect(body.messages).toHaveLength(1)
        const [text, ...images] = body.messages[0]!.content
        expect(text).toMatchObject({ type: 'text' })
        expect(typeof text!.text).toBe('string')
        expect(images).toHaveLength(2)
        for (const image of images) {
          expect(Object.keys(image)).toEqual(['type', 'image_url'])
          expect(image.type).toBe('image_url')
          expect((image.image_url as { url: string }).url).toMatch(
            /^data:image\/jpeg;base64,[A-Za-z0-9+/]+=*$/,
          )
        }
      }
    } finally {
      await new Promise((resolve) => proxy.server.close(resolve))
    }
  })

  test('needs the openai-chat backend', async ({ sim }) => {
    const args = MM_ARGS.map((arg) => (arg === 'openai-chat' ? 'openai' : arg))
    const run = await runCli(['serve', '--base-url', sim.url, ...args])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      '--dataset-name random-mm needs --backend openai-chat (it sends images in chat messages); got --backend openai',
    )
  })
})
