import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect } from 'vitest'
import { playSse, type ScriptServer, sse, startScriptServer } from '../backends/script-server.ts'
import { runCli, test } from '../helpers.ts'
import { expectAccounted, hostileFlags, readResultFile } from './hostile-helpers.ts'

const KEY = 'sk-proj-0123456789abcdefSECRET'
const HF = 'hf_abcdefghijklmnopSECRET'
const BASIC_PASSWORD = 'hunter2-SECRET'

let server: ScriptServer | undefined
afterEach(() => server?.close())

/** Everything the run printed and wrote, checked for every secret. */
async function expectNoSecret(dir: string, stdout: string, stderr: string): Promise<void> {
  const files = await readdir(dir)
  const texts = [stdout, stderr, ...(await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8'))))]
  for (const text of texts) {
    for (const secret of [KEY, HF, BASIC_PASSWORD, 'SECRET']) expect(text).not.toContain(secret)
  }
}

describe('secrets a server echoes back are blanked everywhere', () => {
  test('a 401 that quotes the Bearer token of a --header', async ({ tmpDir }) => {
    server = await startScriptServer((request, response) => {
      const auth = request.rawHeaders.find(([name]) => name.toLowerCase() === 'authorization')?.[1] ?? ''
      response.writeHead(401, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({
          error: {
            message: `Incorrect API key provided: ${auth.replace('Bearer ', '')}`,
            type: 'invalid_request_error',
          },
        }),
      )
    })
    const run = await runCli(
      [
        ...hostileFlags(server.baseUrl),
        '--header',
        `Authorization=Bearer ${KEY}`,
        '--save-result',
        '--save-detailed',
        '--result-dir',
        tmpDir,
      ],
      { env: { HF_TOKEN: HF } },
    )
    expect(run.code).toBe(1)
    const result = await readResultFile(tmpDir)
    expectAccounted(result, 4)
    expect((result.errors as string[])[0]).toContain('Incorrect API key provided: [redacted]')
    expect(run.stdout).toContain('Incorrect API key provided: [redacted]')
    await expectNoSecret(tmpDir, run.stdout, run.stderr)
  })

  test('a stream that echoes the API key, the HF token and a Basic password into the generated text', async ({
    tmpDir,
  }) => {
    server = await startScriptServer((_request, response) =>
      playSse(response, [
        { kind: 'write', data: sse({ choices: [{ text: `key ${KEY} ` }] }) },
        { kind: 'write', data: sse({ choices: [{ text: `hf ${HF} pw ${BASIC_PASSWORD}` }] }) },
        { kind: 'write', data: sse('[DONE]') },
      ]),
    )
    const basic = Buffer.from(`user:${BASIC_PASSWORD}`).toString('base64')
    const run = await runCli(
      [
        ...hostileFlags(server.baseUrl),
        '--header',
        `Proxy-Authorization=Basic ${basic}`,
        '--save-result',
        '--save-detailed',
        '--result-dir',
        tmpDir,
      ],
      { env: { HF_TOKEN: HF, OPENAI_API_KEY: KEY } },
    )
    expect(run.code).toBe(0)
    const result = await readResultFile(tmpDir)
    expectAccounted(result, 4)
    expect((result.generated_texts as string[])[0]).toBe('key [redacted] hf [redacted] pw [redacted]')
    await expectNoSecret(tmpDir, run.stdout, run.stderr)
  })

  test('a server that echoes the key JSON-escaped, base64-encoded or URL-encoded', async ({ tmpDir }) => {
    const escaped = JSON.stringify(KEY).slice(1, -1).replace('-', '\\u002d').replace('S', '\\u0053')
    const base64 = Buffer.from(`Bearer ${KEY}`).toString('base64')
    const urlEncoded = [...KEY].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')
    let n = 0
    server = await startScriptServer((request, response) => {
      if (!request.url.startsWith('/v1/completions')) return void response.writeHead(404).end()
      n++
      if (n % 2 === 0) {
        // An error body, as the server wrote it: the JSON escapes stay escaped in the text.
        response.writeHead(401, { 'content-type': 'application/json' })
        response.end(`{"error":{"message":"bad key ${escaped}, see /auth?k=${urlEncoded}"}}`)
        return
      }
      void playSse(response, [
        { kind: 'write', data: sse({ choices: [{ text: `echo ${base64} ` }] }) },
        { kind: 'write', data: sse({ choices: [{ text: `and ${urlEncoded}` }] }) },
        { kind: 'write', data: sse('[DONE]') },
      ])
    })
    const run = await runCli(
      [
        ...hostileFlags(server.baseUrl),
        '--max-concurrency',
        '1',
        '--save-result',
        '--save-detailed',
        '--plot-timeline',
        '--result-dir',
        tmpDir,
      ],
      { env: { OPENAI_API_KEY: KEY } },
    )
    expect(run.code).toBe(0)
    const files = await readdir(tmpDir)
    expect(files.some((f) => f.endsWith('.timeline.html'))).toBe(true)
    const texts = [
      run.stdout,
      run.stderr,
      ...(await Promise.all(files.map((f) => readFile(join(tmpDir, f), 'utf8')))),
    ]
    for (const text of texts) {
      for (const form of [KEY, escaped, base64.slice(12, 40), urlEncoded, 'SECRET'])
        expect(text).not.toContain(form)
    }
    expect(run.stdout).toContain('bad key [redacted], see /auth?k=[redacted]')
  })
})

describe('--dry-run', () => {
  test('prints the base URL without its password', async () => {
    const run = await runCli([
      'serve',
      '--dry-run',
      '--base-url',
      `http://user:${BASIC_PASSWORD}@127.0.0.1:9`,
      '--model',
      'm',
    ])
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain(BASIC_PASSWORD)
    expect(JSON.parse(run.stdout).endpoint.baseUrl).toBe('http://[redacted]@127.0.0.1:9')
  })
})
