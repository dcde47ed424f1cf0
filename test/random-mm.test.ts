import { describe, expect } from 'vitest'
import { runCli, test } from './helpers.ts'
import { startRecordingProxy } from './server-helpers.ts'

interface ChatBody {
  model: string
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>
  max_completion_tokens: number
  stream: boolean
  ignore_eos?: boolean
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
    // A pass-through to the simulator that keeps each request, so the test sees what was sent.
    const proxy = await startRecordingProxy(sim.url)
    try {
      const run = await runCli(['serve', '--base-url', proxy.url, ...MM_ARGS])
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^Successful requests: +6 *$/m)
      const bodies = proxy.calls
        .filter((c) => c.path === '/v1/chat/completions')
        .map((c) => JSON.parse(c.body) as ChatBody)
        .filter((b) => b.max_completion_tokens === 8)
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
      await proxy.close()
    }
  })

  test('needs the openai-chat backend', async ({ sim }) => {
    const args = MM_ARGS.map((arg) => (arg === 'openai-chat' ? 'openai' : arg))
    const run = await runCli(['serve', '--base-url', sim.url, ...args])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      '--dataset-name random-mm needs --backend openai-chat (it sends images and videos in chat messages); got --backend openai',
    )
  })
})
