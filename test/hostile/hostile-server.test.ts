import type { ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect } from 'vitest'
import { type CapturedRequest, type ScriptServer, sse, startScriptServer } from '../backends/script-server.ts'
import { runCli, test } from '../helpers.ts'
import { expectAccounted, hostileFlags, readResultFile } from './hostile-helpers.ts'

const SECRET = 'sk-hostile-0123456789SECRET'
const NO_CHUNK = 'Never received a valid chunk to calculate TTFT.This response will be marked as failed!'

let server: ScriptServer | undefined
afterEach(() => server?.close())

type Answer = (request: CapturedRequest, response: ServerResponse) => void

/** Runs 2 requests against `answer` with a secret header; checks the accounting, the file and the secret. */
async function runHostile(
  tmpDir: string,
  answer: Answer,
): Promise<{ code: number | null; errors: string[]; result: Record<string, unknown> }> {
  server = await startScriptServer(answer)
  const run = await runCli([
    ...hostileFlags(server.baseUrl, ['--num-prompts', '2']),
    '--header',
    `Authorization=Bearer ${SECRET}`,
    '--save-result',
    '--save-detailed',
    '--result-dir',
    tmpDir,
  ])
  const result = await readResultFile(tmpDir)
  expectAccounted(result, 2)
  for (const text of [run.stdout, run.stderr, JSON.stringify(result)]) expect(text).not.toContain('SECRET')
  return { code: run.code, errors: result.errors as string[], result }
}

describe('a hostile server gets its own words in each failure', () => {
  test('a 200 text/html page', async ({ tmpDir }) => {
    const page = '<!doctype html><title>Gateway login</title>'
    const { code, errors } = await runHostile(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page)
    })
    expect(code).toBe(1)
    expect(errors[0]).toBe(
      `${NO_CHUNK} Server answered HTTP 200 (text/html; charset=utf-8, ${page.length} bytes): ${page}`,
    )
  })

  test('a 200 JSON error body', async ({ tmpDir }) => {
    const body = JSON.stringify({ error: { message: `model overloaded; key ${SECRET}`, code: 503 } })
    const { errors } = await runHostile(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(body)
    })
    expect(errors[0]).toBe(
      `${NO_CHUNK} Server answered HTTP 200 (application/json, ${body.length} bytes): ${body.replace(SECRET, '[redacted]')}`,
    )
  })

  test('a gzip body nobody asked for', async ({ tmpDir }) => {
    const gz = gzipSync(sse({ choices: [{ text: 'hi' }] }))
    const { errors } = await runHostile(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' }).end(gz)
    })
    expect(errors[0]).toBe(
      `${NO_CHUNK} Server answered HTTP 200 (text/event-stream, ${gz.length} bytes) with content-encoding gzip, which servebench did not ask for and does not decode`,
    )
  })

  test('a 502 HTML page from a proxy names its content type', async ({ tmpDir }) => {
    const page = '<html><body>Bad gateway</body></html>'
    const { code, errors } = await runHostile(tmpDir, (_q, response) => {
      response.writeHead(502, { 'content-type': 'text/html' }).end(page)
    })
    expect(code).toBe(1)
    expect(errors[0]).toBe(`HTTP 502 Bad Gateway (text/html): ${page}`)
  })

  test('CR-only line endings are parsed', async ({ tmpDir }) => {
    const { code, result } = await runHostile(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end(
        `data: ${JSON.stringify({ choices: [{ text: 'one ' }] })}\r\rdata: ${JSON.stringify({ choices: [{ text: 'two' }] })}\r\rdata: [DONE]\r\r`,
      )
    })
    expect(code).toBe(0)
    expect(result.completed).toBe(2)
    expect((result.generated_texts as string[])[0]).toBe('one two')
  })

  test('256 KB of output without usage is counted, and the run ends', async ({ tmpDir }) => {
    const { code, result } = await runHostile(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      for (let i = 0; i < 64; i++) response.write(sse({ choices: [{ text: 'a'.repeat(4_096) }] }))
      response.end(sse('[DONE]'))
    })
    expect(code).toBe(0)
    expect(result.completed).toBe(2)
    expect((result.output_lens as number[])[0]).toBeGreaterThan(1_000)
  })

  test('a socket reset mid-stream', async ({ tmpDir }) => {
    const { code, errors } = await runHostile(tmpDir, (_q, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.write(sse({ choices: [{ text: 'partial' }] }))
      setTimeout(() => response.socket?.destroy(), 20)
    })
    expect(code).toBe(1)
    expect(errors[0]).toMatch(/^Stream error: /)
  })

  test('terminal control sequences in an error reach the console escaped, the file as sent', async ({
    tmpDir,
  }) => {
    const body = 'overloaded \u001b[31mRED\u001b[0m \u001b]0;owned\u0007 \rFAKE LINE\u009b2J'
    const { errors } = await runHostile(tmpDir, (_q, response) => {
      response.writeHead(503, { 'content-type': 'text/plain' }).end(body)
    })
    expect(errors[0]).toBe(`HTTP 503 Service Unavailable: ${body}`)
    const run = await runCli([...hostileFlags(server!.baseUrl, ['--num-prompts', '2'])])
    // biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters are what must not be printed.
    expect(run.stdout + run.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
    expect(run.stdout).toContain(
      'Error 0: HTTP 503 Service Unavailable: overloaded \\x1b[31mRED\\x1b[0m \\x1b]0;owned\\x07 \\x0dFAKE LINE\\x9b2J',
    )
  })
})
