import type { ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect } from 'vitest'
import { DEFAULT_STREAM_LIMITS, responseTooLargeMessage } from '../../src/backends/stream-limits.ts'
import { impossibleUsageMessage } from '../../src/backends/usage-counts.ts'
import { type CapturedRequest, type ScriptServer, startScriptServer } from '../backends/script-server.ts'
import { runCli, test } from '../helpers.ts'
import { hostileFlags, readResultFile } from './hostile-helpers.ts'

let server: ScriptServer | undefined
afterEach(() => server?.close())

type Answer = (request: CapturedRequest, response: ServerResponse) => void

/** Runs 2 embedding requests against `answer`; the result file is read back and checked. */
async function runPooling(
  tmpDir: string,
  answer: Answer,
  extra: string[] = [],
): Promise<{ code: number | null; errors: string[]; result: Record<string, unknown>; stdout: string }> {
  server = await startScriptServer(answer)
  const run = await runCli([
    ...hostileFlags(server.baseUrl, ['--num-prompts', '2', '--backend', 'openai-embeddings']),
    '--save-result',
    '--save-detailed',
    '--result-dir',
    tmpDir,
    ...extra,
  ])
  const result = await readResultFile(tmpDir)
  expectPoolingAccounted(result, 2)
  return { code: run.code, errors: result.errors as string[], result, stdout: run.stdout }
}

const EMBEDDING = JSON.stringify({ data: [{ embedding: [0.5, 0.25] }], usage: { prompt_tokens: 7 } })

describe('a pooling answer that response.json() would refuse fails its request', () => {
  test('broken JSON', async ({ tmpDir }) => {
    const { code, errors } = await runPooling(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [')
    })
    expect(code).toBe(1)
    expect(errors[0]).toMatch(/^Response error: the body is not valid JSON \(/)
  })

  test('a text/html page', async ({ tmpDir }) => {
    const { code, errors } = await runPooling(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>login</html>')
    })
    expect(code).toBe(1)
    expect(errors[0]).toBe(
      'Response error: HTTP 200 (text/html; charset=utf-8) where a JSON answer was expected',
    )
  })

  test('a gzip bomb is never inflated', async ({ tmpDir }) => {
    // 64 MiB of zeros in 64 KiB: what a client that inflates it would hold is 1,000 times the bytes sent.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024))
    const { code, errors } = await runPooling(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb)
    })
    expect(code).toBe(1)
    expect(errors[0]).toBe(
      'Response error: HTTP 200 with content-encoding gzip, which servebench did not ask for and does not decode',
    )
  })

  test('an endless embedding body stops at SERVEBENCH_MAX_RESPONSE_BYTES', async ({ tmpDir }) => {
    const { code, errors } = await runPooling(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"data":[{"embedding":[')
      const piece = '0.125,'.repeat(10_000)
      const write = (): void => {
        while (!response.destroyed && response.write(piece)) {}
        if (!response.destroyed) response.once('drain', write)
      }
      response.on('close', () => response.removeAllListeners('drain'))
      write()
    })
    expect(code).toBe(1)
    expect(errors[0]).toBe(responseTooLargeMessage(DEFAULT_STREAM_LIMITS.maxResponseBytes))
  })

  test('a content-length over the limit is refused before the body is read', async ({ tmpDir }) => {
    const limited = await runPoolingWithEnv(
      tmpDir,
      (_q, response) => {
        // Headers that promise 2 MiB, then a body that never comes: only the headers can fail it.
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 * 1024 * 1024 })
        response.write('{"data":[')
      },
      { SERVEBENCH_MAX_RESPONSE_BYTES: String(1024 * 1024) },
    )
    expect(limited.errors[0]).toBe(responseTooLargeMessage(1024 * 1024))
  })

  test('an impossible usage.prompt_tokens fails the request and names the count', async ({ tmpDir }) => {
    const { code, result, errors } = await runPooling(tmpDir, (_q, response) => {
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: [{ embedding: [0.5] }], usage: { prompt_tokens: -5 } }))
    })
    expect(code).toBe(1)
    expect(errors[0]).toBe(impossibleUsageMessage('prompt_tokens', -5))
    expect(result.total_input_tokens).toBe(0)
  })

  test('a good answer is still completed, its usage counted', async ({ tmpDir }) => {
    const { code, result } = await runPooling(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(EMBEDDING)
    })
    expect(code).toBe(0)
    expect(result).toMatchObject({ completed: 2, total_input_tokens: 14 })
  })
})

describe('--max-retries with a pooling backend', () => {
  test('a 429 is retried, as for a streamed request', async ({ tmpDir }) => {
    let answered = 0
    server = await startScriptServer((request, response) => {
      // The ready check is the first embedding request; the first timed one gets a 429 once.
      if (request.url.startsWith('/v1/embeddings')) answered++
      if (answered === 2 && request.url.startsWith('/v1/embeddings')) {
        response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' })
        response.end('{"error":"slow down"}')
        return
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(EMBEDDING)
    })
    const run = await runCli([
      ...hostileFlags(server.baseUrl, ['--num-prompts', '2', '--backend', 'openai-embeddings']),
      '--max-retries',
      '3',
      '--max-concurrency',
      '1',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('servebench: 1 retry for 1 request (1 recovered; --max-retries 3)')
    expect(await readResultFile(tmpDir)).toMatchObject({ completed: 2 })
  })
})

/** A pooling result has no `failed` key: its failures are the requests with an error. */
function expectPoolingAccounted(result: Record<string, unknown>, sent: number): void {
  const errors = result.errors as string[]
  expect(errors).toHaveLength(sent)
  expect((result.completed as number) + errors.filter((e) => e !== '').length).toBe(sent)
}

async function runPoolingWithEnv(
  tmpDir: string,
  answer: Answer,
  env: Record<string, string>,
): Promise<{ errors: string[] }> {
  server = await startScriptServer(answer)
  const run = await runCli(
    [
      ...hostileFlags(server.baseUrl, ['--num-prompts', '2', '--backend', 'openai-embeddings']),
      '--save-result',
      '--save-detailed',
      '--result-dir',
      tmpDir,
    ],
    { env },
  )
  expect(run.code).toBe(1)
  const result = await readResultFile(tmpDir)
  return { errors: result.errors as string[] }
}
