import { readdir, readFile, writeFile } from 'node:fs/promises'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { type FakeHub, startFakeHub } from './fake-hub.ts'
import { ROOT, readOnlyResult, runCli, test } from './helpers.ts'
import { writeParquet } from './parquet-writer.ts'

const IMAGES = join(ROOT, 'fixtures/datasets/custom-image')
const BFCL_FILES = join(ROOT, 'fixtures/datasets/bfcl')
const BFCL = 'gorilla-llm/Berkeley-Function-Calling-Leaderboard'

/** A pass-through HTTP proxy in front of the simulator that keeps every chat request body. */
interface RecordingProxy {
  url: string
  bodies: Array<Record<string, unknown>>
  close(): Promise<void>
}

async function recordingProxy(target: string): Promise<RecordingProxy> {
  const bodies: Array<Record<string, unknown>> = []
  const upstream = new URL(target)
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      if (req.method === 'POST' && req.url?.endsWith('/chat/completions'))
        bodies.push(JSON.parse(body.toString()))
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      forward.on('error', (error) => res.writeHead(502).end(String(error)))
      forward.end(body)
    })
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () => new Promise((done) => server.close(() => done())),
  }
}

async function startBfclHub(): Promise<FakeHub> {
  const files: Record<string, Buffer> = {}
  for (const name of await readdir(BFCL_FILES)) files[name] = await readFile(join(BFCL_FILES, name))
  return startFakeHub({ repos: [{ type: 'dataset', id: BFCL, commit: 'f'.repeat(40), files }] })
}

const hubEnv = (hub: FakeHub, home: string) => ({
  HF_HOME: home,
  HF_HUB_CACHE: '',
  HF_HUB_OFFLINE: '',
  HF_TOKEN: '',
  HF_ENDPOINT: hub.endpoint,
  SERVEBENCH_HF_DATASETS_SERVER: hub.datasetsServer,
})

describe('servebench serve with custom_image, BFCL and MLPerf', () => {
  test('custom_image with --custom-ensure-client-side-data sends the images inline', async ({
    sim,
    tmpDir,
  }) => {
    const proxy = await recordingProxy(sim.url)
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        proxy.url,
        '--backend',
        'openai-chat',
        '--tokenizer',
        'cl100k_base',
        '--dataset-name',
        'custom_image',
        '--dataset-path',
        join(IMAGES, 'images.jsonl'),
        '--custom-ensure-client-side-data',
        '--custom-output-len',
        '6',
        '--num-prompts',
        '5',
        '--num-warmups',
        '0',
        '--ready-check-timeout-sec',
        '0',
        '--disable-tqdm',
        '--save-result',
        '--result-dir',
        tmpDir,
      ])
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      const result = await readOnlyResult(tmpDir)
      expect(result.completed).toBe(5)
      expect(proxy.bodies).toHaveLength(5)
      const red = `data:image/png;base64,${(await readFile(join(IMAGES, 'red.png'))).toString('base64')}`
      for (const body of proxy.bodies) {
        expect(body.max_completion_tokens).toBe(6)
        const parts = (
          body.messages as Array<{ content: Array<{ type: string; image_url?: { url: string } }> }>
        )[0]!.content
        const urls = parts.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url)
        expect(urls.length).toBeGreaterThan(0)
        for (const url of urls) expect(url).toMatch(/^data:image\/png;base64,/)
      }
      const all = proxy.bodies.flatMap((b) => JSON.stringify(b))
      expect(all.some((text) => text.includes(red))).toBe(true)
    } finally {
      await proxy.close()
    }
  })

  test('custom_image errors: an unloadable image, and a backend other than openai-chat', async ({
    tmpDir,
  }) => {
    const path = join(tmpDir, 'bad.jsonl')
    await writeFile(path, `${JSON.stringify({ prompt: 'Describe.', image_files: ['missing.png'] })}\n`)
    const bad = await runCli([
      'serve',
      '--backend',
      'openai-chat',
      '--base-url',
      'http://127.0.0.1:9',
      '--model',
      'm',
      '--tokenizer',
      'cl100k_base',
      '--dataset-name',
      'custom_image',
      '--dataset-path',
      path,
      '--custom-ensure-client-side-data',
    ])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain(
      `custom_image: ${path}:1: cannot load image file://${join(tmpDir, 'missing.png')}: no such file: ${join(tmpDir, 'missing.png')}`,
    )
    const wrong = await runCli(['serve', '--dataset-name', 'custom_image', '--dataset-path', path])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain(
      '--dataset-name custom_image needs --backend openai-chat (it sends images in chat messages); got --backend openai',
    )
  })

  test('BFCL from the hub: first-turn messages plus tools that win over --extra-body', async ({
    sim,
    tmpDir,
  }) => {
    const hub = await startBfclHub()
    const proxy = await recordingProxy(sim.url)
    try {
      const run = await runCli(
        [
          'serve',
          '--base-url',
          proxy.url,
          '--backend',
          'openai-chat',
          '--tokenizer',
          'cl100k_base',
          '--dataset-name',
          'hf',
          '--dataset-path',
          BFCL,
          '--bfcl-categories',
          'simple,live_simple',
          '--hf-output-len',
          '8',
          '--extra-body',
          '{"tool_choice": "none", "temperature": 0}',
          '--num-prompts',
          '7',
          '--num-warmups',
          '0',
          '--ready-check-timeout-sec',
          '0',
          '--disable-tqdm',
          '--save-result',
          '--save-detailed',
          '--result-dir',
          join(tmpDir, 'out'),
        ],
        { env: hubEnv(hub, tmpDir) },
      )
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      const result = await readOnlyResult(join(tmpDir, 'out'))
      expect(result.completed).toBe(7)
      expect(proxy.bodies).toHaveLength(7)
      const names = new Set<string>()
      for (const body of proxy.bodies) {
        expect(body.tool_choice).toBe('auto')
        expect(body.temperature).toBe(0)
        expect(body.max_completion_tokens).toBe(8)
        const tools = body.tools as Array<{
          type: string
          function: { name: string; parameters: { type: string } }
        }>
        expect(tools[0]!.type).toBe('function')
        expect(tools[0]!.function.parameters.type).toBe('object')
        names.add(tools[0]!.function.name)
        const messages = body.messages as Array<{ role: string; content: unknown }>
        expect(typeof messages.at(-1)!.content).toBe('string')
      }
      expect([...names].sort()).toEqual(['calculate_triangle_area', 'get_weather_forecast'])
    } finally {
      await proxy.close()
      await hub.close()
    }
  })

  test('BFCL refuses a completions backend and names a missing category', async ({ sim, tmpDir }) => {
    const wrong = await runCli(['serve', '--dataset-name', 'hf', '--dataset-path', BFCL])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain(
      `--backend must be openai-chat with ${BFCL}: it sends each request's tool schemas in chat completions (got openai)`,
    )
    const hub = await startBfclHub()
    try {
      const missing = await runCli(
        [
          'serve',
          '--base-url',
          sim.url,
          '--backend',
          'openai-chat',
          '--tokenizer',
          'cl100k_base',
          '--dataset-name',
          'hf',
          '--dataset-path',
          BFCL,
          '--bfcl-categories',
          'exec_simple',
        ],
        { env: hubEnv(hub, tmpDir) },
      )
      expect(missing.code).not.toBe(0)
      expect(missing.stderr).toContain(
        `hf: BFCL category "exec_simple" not found: ${BFCL} has no BFCL_v3_exec_simple.json; check --bfcl-categories (default: simple,live_simple,multiple)`,
      )
    } finally {
      await hub.close()
    }
  })

  test('MLPerf from the hub parquet export against the simulator', async ({ sim, tmpDir }) => {
    const rows = Array.from({ length: 5 }, (_, i) => ({
      system_prompt: 'You are a concise assistant.',
      question: `In one paragraph, explain what benchmark number ${i} measures and why it matters.`,
      output: `Benchmark ${i} measures throughput under load, which matters for serving costs.`,
    }))
    const hub = await startFakeHub({
      repos: [
        {
          type: 'dataset',
          id: 'mgoin/mlperf-inference-llama2-data',
          commit: 'a'.repeat(40),
          files: {},
          parquetExport: { 'default/train/0000.parquet': writeParquet(rows) },
        },
      ],
    })
    try {
      const run = await runCli(
        [
          'serve',
          '--base-url',
          sim.url,
          '--tokenizer',
          'cl100k_base',
          '--dataset-name',
          'hf',
          '--dataset-path',
          'mgoin/mlperf-inference-llama2-data',
          '--num-prompts',
          '5',
          '--ignore-eos',
          '--disable-tqdm',
          '--save-result',
          '--save-detailed',
          '--result-dir',
          join(tmpDir, 'out'),
        ],
        { env: hubEnv(hub, tmpDir) },
      )
      expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
      expect(run.code).toBe(0)
      // cl100k_base has no chat template: the prompt is sent raw, with a note.
      expect(run.stderr).toContain('has no chat template, so prompts are sent without one')
      const result = await readOnlyResult(join(tmpDir, 'out'))
      expect(result.completed).toBe(5)
      // The output length of each request is the reference's token count (ignore_eos makes it exact).
      expect((result.output_lens as number[]).every((n) => n >= 12 && n <= 20)).toBe(true)
    } finally {
      await hub.close()
    }
  })
})
