import { describe, expect } from 'vitest'
import { readOnlyResult, runCli, test } from './helpers.ts'
import { startRecordingProxy } from './server-helpers.ts'

interface ChatBody {
  max_completion_tokens: number
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>
}

// Tiny frames and few of them: the run stays fast, and every request still carries a real MP4.
const VIDEO_ARGS = [
  '--backend',
  'openai-chat',
  '--dataset-name',
  'random-mm',
  '--tokenizer',
  'cl100k_base',
  '--random-input-len',
  '24',
  '--random-output-len',
  '6',
  '--random-mm-base-items-per-request',
  '2',
  '--random-mm-bucket-config',
  '{(16, 24, 1): 0.5, (8, 16, 4): 0.5, (720, 1280, 16): 0.0}',
  '--num-prompts',
  '8',
  '--seed',
  '3',
  '--disable-tqdm',
]

// The frame count and size an MP4 declares (stsz, and the jpeg sample entry's width and height).
function mp4Shape(url: string): { frames: number; width: number; height: number } {
  const prefix = 'data:video/mp4;base64,'
  expect(url.startsWith(prefix)).toBe(true)
  const mp4 = Buffer.from(url.slice(prefix.length), 'base64')
  expect(mp4.subarray(4, 12).toString('latin1')).toBe('ftypisom')
  const entry = mp4.indexOf('jpeg', 0, 'latin1')
  const stsz = mp4.indexOf('stsz', 0, 'latin1')
  return {
    frames: mp4.readUInt32BE(stsz + 12),
    width: mp4.readUInt16BE(entry + 28),
    height: mp4.readUInt16BE(entry + 30),
  }
}

describe('servebench serve --dataset-name random-mm with a video bucket', () => {
  test('sends the text, then images and at most one MP4 video per request; the result file validates', async ({
    sim,
    tmpDir,
  }) => {
    // The simulator's chat route counts only the text parts; the proxy keeps what was sent.
    const proxy = await startRecordingProxy(sim.url)
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        proxy.url,
        ...VIDEO_ARGS,
        '--save-result',
        '--result-dir',
        tmpDir,
      ])
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^Successful requests: +8 *$/m)
      const result = await readOnlyResult(tmpDir)
      expect(result).toMatchObject({ completed: 8, failed: 0, backend: 'openai-chat' })
      const bodies = proxy.calls
        .filter((c) => c.path === '/v1/chat/completions')
        .map((c) => JSON.parse(c.body) as ChatBody)
        .filter((b) => b.max_completion_tokens === 6)
      expect(bodies).toHaveLength(8)
      let videos = 0
      for (const body of bodies) {
        const [text, ...parts] = body.messages[0]!.content
        expect(text).toMatchObject({ type: 'text' })
        expect(parts).toHaveLength(2)
        const videoParts = parts.filter((p) => p.type === 'video_url')
        expect(videoParts.length).toBeLessThanOrEqual(1)
        videos += videoParts.length
        for (const part of parts) {
          if (part.type === 'video_url') {
            expect(Object.keys(part)).toEqual(['type', 'video_url'])
            const { url } = part.video_url as { url: string }
            expect(url).toMatch(/^data:video\/mp4;base64,[A-Za-z0-9+/]+=*$/)
            expect(mp4Shape(url)).toEqual({ frames: 4, width: 16, height: 8 })
          } else {
            expect(part.type).toBe('image_url')
            expect((part.image_url as { url: string }).url).toMatch(/^data:image\/jpeg;base64,/)
          }
        }
      }
      // Each request has a 3-in-4 chance of a video in two draws at 1/2.
      expect(videos).toBeGreaterThan(0)
    } finally {
      await proxy.close()
    }
  })

  test('refuses a bucket of 0 frames, naming the flag and the entry', async ({ sim }) => {
    const args = VIDEO_ARGS.map((arg) => (arg.startsWith('{(16, 24, 1)') ? '{(16, 24, 0): 1}' : arg))
    const run = await runCli(['serve', '--base-url', sim.url, ...args])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      '--random-mm-bucket-config has a bad entry "(16, 24, 0): 1": frames must be an integer from 1 to 65535 (got 0)',
    )
  })
})
