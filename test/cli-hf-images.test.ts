import { join } from 'node:path'
import { encode as encodeJpeg } from 'jpeg-js'
import { describe, expect } from 'vitest'
import { type FakeHub, startFakeHub } from './fake-hub.ts'
import { ROOT, readOnlyResult, runCli, test } from './helpers.ts'
import { IMAGE_TYPE, writeParquet } from './parquet-writer.ts'
import { startRecordingProxy } from './server-helpers.ts'

interface ChatBody {
  messages: Array<{ role: string; content: Array<Record<string, unknown>> }>
  max_completion_tokens: number
}

const jpeg = (shade: number) =>
  new Uint8Array(encodeJpeg({ data: Buffer.alloc(8 * 8 * 4, shade), width: 8, height: 8 }, 90).data)
const MMSTAR_ROWS = Array.from({ length: 5 }, (_, i) => ({
  question: `How many triangles can you count in picture ${i}?\nOptions: A: one, B: two`,
  image: { bytes: jpeg(i * 50), path: null },
}))
const MMVU_ROWS = Array.from({ length: 3 }, (_, i) => ({
  question: `Which tool does the person in video ${i} pick up first?`,
  video: `https://videos.example.org/mmvu/${i}.mp4`,
  choices: { A: 'a hammer', B: 'a saw' },
}))

const BASE = ['serve', '--tokenizer', 'cl100k_base', '--dataset-name', 'hf', '--disable-tqdm']

function chatBodies(calls: Array<{ path: string; body: string }>): ChatBody[] {
  return calls.filter((c) => c.path === '/v1/chat/completions').map((c) => JSON.parse(c.body) as ChatBody)
}

async function withHub(home: string, run: (env: Record<string, string>, hub: FakeHub) => Promise<void>) {
  const hub = await startFakeHub({
    repos: [
      {
        type: 'dataset',
        id: 'Lin-Chen/MMStar',
        commit: 'a'.repeat(40),
        files: {},
        parquetExport: {
          'val/val/0000.parquet': writeParquet(MMSTAR_ROWS, { question: 'string', image: IMAGE_TYPE }),
        },
      },
      {
        type: 'dataset',
        id: 'yale-nlp/MMVU',
        commit: 'b'.repeat(40),
        files: {},
        parquetExport: {
          'default/validation/0000.parquet': writeParquet(MMVU_ROWS, {
            question: 'string',
            video: 'string',
            choices: { struct: { A: 'string', B: 'string' } },
          }),
        },
      },
    ],
  })
  try {
    await run(
      {
        HF_HOME: home,
        HF_HUB_CACHE: '',
        HF_HUB_OFFLINE: '',
        HF_ENDPOINT: hub.endpoint,
        SERVEBENCH_HF_DATASETS_SERVER: hub.datasetsServer,
      },
      hub,
    )
  } finally {
    await hub.close()
  }
}

describe('servebench serve with image and video datasets', () => {
  test('hf Lin-Chen/MMStar sends each question with its image to the simulator', async ({ sim, tmpDir }) => {
    const proxy = await startRecordingProxy(sim.url)
    try {
      await withHub(join(tmpDir, 'hf'), async (env) => {
        const args = [
          ...BASE,
          '--base-url',
          proxy.url,
          '--backend',
          'openai-chat',
          '--dataset-path',
          'Lin-Chen/MMStar',
        ]
        const out = join(tmpDir, 'out')
        const run = await runCli(
          [...args, '--num-prompts', '5', '--save-result', '--save-detailed', '--result-dir', out],
          { env },
        )
        expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
        expect(run.code).toBe(0)
        const result = await readOnlyResult(out)
        expect(result.completed).toBe(5)
        const bodies = chatBodies(proxy.calls).filter((b) => b.max_completion_tokens === 128)
        expect(bodies.length).toBeGreaterThanOrEqual(5)
        const sent = new Set<string>()
        for (const body of bodies) {
          const [text, image, ...rest] = body.messages[0]!.content
          expect(rest).toEqual([])
          const i = Number(/picture (\d)/.exec(String(text!.text))![1])
          expect(text).toEqual({ type: 'text', text: `How many triangles can you count in picture ${i}?` })
          const url = `data:image/jpeg;base64,${Buffer.from(MMSTAR_ROWS[i]!.image.bytes).toString('base64')}`
          expect(image).toEqual({ type: 'image_url', image_url: { url } })
          sent.add(String(text!.text))
        }
        expect(sent.size).toBe(5)
      })
    } finally {
      await proxy.close()
    }
  })

  test('hf yale-nlp/MMVU sends the question, its choices and the video URL', async ({ sim, tmpDir }) => {
    const proxy = await startRecordingProxy(sim.url)
    try {
      await withHub(tmpDir, async (env) => {
        const args = [
          ...BASE,
          '--base-url',
          proxy.url,
          '--backend',
          'openai-chat',
          '--dataset-path',
          'yale-nlp/MMVU',
        ]
        const run = await runCli([...args, '--num-prompts', '3', '--hf-output-len', '9'], { env })
        expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
        expect(run.code).toBe(0)
        expect(run.stdout).toMatch(/^Successful requests: +3 *$/m)
        const contents = chatBodies(proxy.calls)
          .filter((b) => b.max_completion_tokens === 9)
          .map((b) => b.messages[0]!.content)
        expect(contents).toContainEqual([
          { type: 'text', text: 'Which tool does the person in video 2 pick up first? A.a hammer B.a saw' },
          { type: 'video_url', video_url: { url: 'https://videos.example.org/mmvu/2.mp4' } },
        ])
      })
    } finally {
      await proxy.close()
    }
  })

  test('an image family on a completions backend is refused, naming --backend', async ({ sim, tmpDir }) => {
    await withHub(tmpDir, async (env, hub) => {
      const args = [...BASE, '--base-url', sim.url, '--dataset-path', 'Lin-Chen/MMStar', '--num-prompts', '2']
      const run = await runCli(args, { env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(
        "hf: Lin-Chen/MMStar sends images in chat messages, so it needs --backend openai-chat (endpoint({ backend: 'openai-chat' }) in the DSL); got openai",
      )
      expect(hub.requests).toEqual([])
    })
  })

  test('sharegpt entries with image and video fields send them after the text', async ({ sim, tmpDir }) => {
    const proxy = await startRecordingProxy(sim.url)
    try {
      const path = join(ROOT, 'fixtures/datasets/sharegpt-media.json')
      const out = join(tmpDir, 'out')
      const run = await runCli([
        'serve',
        '--base-url',
        proxy.url,
        '--backend',
        'openai-chat',
        '--tokenizer',
        'cl100k_base',
        '--dataset-name',
        'sharegpt',
        '--dataset-path',
        path,
        '--sharegpt-output-len',
        '7',
        '--num-prompts',
        '5',
        '--no-oversample',
        '--disable-tqdm',
        '--save-result',
        '--result-dir',
        out,
      ])
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      expect((await readOnlyResult(out)).completed).toBe(5)
      const parts = chatBodies(proxy.calls)
        .filter((b) => b.max_completion_tokens === 7)
        .map((b) => b.messages[0]!.content.slice(1).map((p) => String(p.type)))
      expect(parts.sort()).toEqual([[], ['image_url'], ['image_url'], ['video_url'], ['video_url']])
      const urls = chatBodies(proxy.calls).flatMap((b) =>
        b.messages[0]!.content.slice(1).map((p) => (p.image_url ?? p.video_url) as { url: string }),
      )
      expect(urls.map((u) => u.url.slice(0, 22))).toContain('data:image/jpeg;base64')
      expect(urls.map((u) => u.url)).toContain('https://videos.example.org/clip.mp4')
    } finally {
      await proxy.close()
    }
  })
})
