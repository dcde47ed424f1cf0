import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect } from 'vitest'
import {
  eventTooLargeMessage,
  FAILED_OUTPUT_KEPT_CHARS,
  outputTooLargeMessage,
} from '../../src/backends/stream-limits.ts'
import { impossibleUsageMessage } from '../../src/backends/usage-counts.ts'
import { AUX_BODY_LIMITS } from '../../src/response-body.ts'
import { type CapturedRequest, type ScriptServer, sse, startScriptServer } from '../backends/script-server.ts'
import { runCli, test } from '../helpers.ts'
import { expectAccounted, hostileFlags, readResultFile } from './hostile-helpers.ts'

let server: ScriptServer | undefined
afterEach(() => server?.close())

/** Writes `piece` as fast as the client reads, until it goes away. */
function endless(response: ServerResponse, piece: string): void {
  const write = (): void => {
    while (!response.destroyed && response.write(piece)) {}
    if (!response.destroyed) response.once('drain', write)
  }
  response.on('close', () => response.removeAllListeners('drain'))
  write()
}

/** A short, well-formed completion stream. */
function completion(response: ServerResponse, usage?: Record<string, unknown>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' })
  response.write(sse({ choices: [{ text: 'hi there' }] }))
  if (usage) response.write(sse({ choices: [], usage }))
  response.end(sse('[DONE]'))
}

/** Answers `/v1/completions` with a short stream and every other route with `other`. */
function completionsAnd(
  other: (request: CapturedRequest, response: ServerResponse) => void,
): (request: CapturedRequest, response: ServerResponse) => void {
  return (request, response) => {
    if (request.url.startsWith('/v1/completions')) completion(response)
    else other(request, response)
  }
}

describe('auxiliary replies are bounded', () => {
  test('an endless /v1/models body is a named error (exit 3), not a heap that grows', async () => {
    server = await startScriptServer((_q, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"data":[{"id":"')
      endless(response, 'x'.repeat(65_536))
    })
    const flags = hostileFlags(server.baseUrl)
    flags.splice(flags.indexOf('--model'), 2)
    const run = await runCli(flags)
    expect(run.code).toBe(3)
    expect(run.stderr).toContain(
      `GET ${server.baseUrl}/v1/models answered more than ${AUX_BODY_LIMITS.modelsBytes} bytes`,
    )
  })

  test('an endless /tokenize answer skips the prompt fitting with the reason', async () => {
    server = await startScriptServer(
      completionsAnd((request, response) => {
        if (!request.url.startsWith('/tokenize')) return void response.writeHead(404).end()
        response.writeHead(200, { 'content-type': 'application/json' })
        response.write('{"tokens":[')
        endless(response, '1234, '.repeat(10_000))
      }),
    )
    const run = await runCli(hostileFlags(server.baseUrl))
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('WARNING: /tokenize unavailable, skipping alignment.')
    expect(run.stdout).toMatch(/servebench: POST \/tokenize answered more than \d+ bytes/)
  })

  test('a /tokenize that never answers waits --request-timeout, not 300 s', async () => {
    server = await startScriptServer(
      completionsAnd((request, response) => {
        if (!request.url.startsWith('/tokenize')) response.writeHead(404).end()
        // Otherwise: no answer, ever.
      }),
    )
    const run = await runCli([...hostileFlags(server.baseUrl), '--request-timeout', '2'], {
      timeoutMs: 60_000,
    })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('servebench: POST /tokenize got no answer within --request-timeout 2')
  })

  test('the /tokenize tokenizer honours --read-timeout (exit 2 naming it)', async () => {
    server = await startScriptServer(() => {
      // No answer, ever.
    })
    const flags = hostileFlags(server.baseUrl, ['--read-timeout', '1'])
    flags[flags.indexOf('--tokenizer') + 1] = 'server'
    const run = await runCli(flags, { timeoutMs: 60_000 })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`  - server: POST ${server.baseUrl}/tokenize got no answer within 1 s (`)
  })
})

describe('usage counts a server cannot mean', () => {
  test.for([
    ['completion_tokens', 1e300],
    ['completion_tokens', 2.5],
    ['prompt_tokens', -5],
    ['prompt_tokens', '12'],
  ] as const)('usage.%s = %s fails the request, naming it', async ([field, value], { tmpDir }) => {
    server = await startScriptServer((request, response) => {
      if (!request.url.startsWith('/v1/completions')) return void response.writeHead(404).end()
      completion(response, { prompt_tokens: 16, completion_tokens: 2, [field]: value })
    })
    const run = await runCli([
      ...hostileFlags(server.baseUrl),
      '--save-result',
      '--save-detailed',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(1)
    const result = await readResultFile(tmpDir)
    expectAccounted(result, 4)
    expect(result.failed).toBe(4)
    expect((result.errors as string[])[0]).toBe(impossibleUsageMessage(field, value))
    expect(result.total_input_tokens).toBe(0)
    expect(result.output_throughput).toBe(0)
  })
})

describe('streams a server sends to fill the client', () => {
  test('one event of many data lines and no blank line fails at the event limit, named so', async ({
    tmpDir,
  }) => {
    server = await startScriptServer((request, response) => {
      if (!request.url.startsWith('/v1/completions')) return void response.writeHead(404).end()
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      endless(response, `data: ${JSON.stringify({ choices: [{ text: 'x' }] })}\n`.repeat(1_000))
    })
    const run = await runCli(
      [...hostileFlags(server.baseUrl), '--save-result', '--save-detailed', '--result-dir', tmpDir],
      { env: { SERVEBENCH_MAX_SSE_EVENT_BYTES: String(4 * 1024 * 1024) } },
    )
    expect(run.code).toBe(1)
    const result = await readResultFile(tmpDir)
    expect((result.errors as string[])[0]).toBe(eventTooLargeMessage(4 * 1024 * 1024))
  })

  test('a failed request keeps the start of its text only', async ({ tmpDir }) => {
    server = await startScriptServer((request, response) => {
      if (!request.url.startsWith('/v1/completions')) return void response.writeHead(404).end()
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      endless(response, sse({ choices: [{ text: 'word '.repeat(1_000) }] }))
    })
    const run = await runCli(
      [...hostileFlags(server.baseUrl), '--save-result', '--save-detailed', '--result-dir', tmpDir],
      { env: { SERVEBENCH_MAX_OUTPUT_CHARS: '1000000' } },
    )
    expect(run.code).toBe(1)
    const result = await readResultFile(tmpDir)
    expect((result.errors as string[])[0]).toBe(outputTooLargeMessage(1_000_000))
    for (const text of result.generated_texts as string[]) expect(text).toHaveLength(FAILED_OUTPUT_KEPT_CHARS)
  })
})
