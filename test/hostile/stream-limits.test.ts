import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, test } from 'vitest'
import {
  DEFAULT_STREAM_LIMITS,
  lineTooLargeMessage,
  outputTooLargeMessage,
  STREAM_LIMIT_ENV,
} from '../../src/backends/stream-limits.ts'
import type { HttpTransport } from '../../src/config/bench-config.ts'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import {
  type CapturedRequest,
  HTTP_TRANSPORT_CASES,
  type ScriptServer,
  sse,
  startScriptServer,
} from '../backends/script-server.ts'
import { configFrom } from '../faults/fault-helpers.ts'

// The run's own growth of the worker's RSS: the worker is shared with other files (isolate: false),
// so its absolute size says nothing about this run.
const RSS_GROWTH_LIMIT_BYTES = 350 * 1024 * 1024

let server: ScriptServer | undefined
afterEach(async () => {
  await server?.close()
  delete process.env[STREAM_LIMIT_ENV.maxEventBytes]
  delete process.env[STREAM_LIMIT_ENV.maxOutputChars]
})

/** Writes `piece` forever, as fast as the client reads, until the client goes away; 404 off the generation path. */
function endless(request: CapturedRequest, response: ServerResponse, piece: string): void {
  if (!request.url.startsWith('/v1/completions')) {
    response.writeHead(404).end()
    return
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' })
  const write = (): void => {
    while (!response.destroyed && response.write(piece)) {}
    if (!response.destroyed) response.once('drain', write)
  }
  response.on('close', () => response.removeAllListeners('drain'))
  write()
}

function runAgainst(baseUrl: string, transport: HttpTransport = 'auto'): ReturnType<typeof runBenchmark> {
  return runBenchmark(
    configFrom([
      '--http-transport',
      transport,
      '--base-url',
      baseUrl,
      '--model',
      'hostile/model',
      '--tokenizer',
      'cl100k_base',
      '--random-input-len',
      '16',
      '--random-output-len',
      '4',
      '--num-prompts',
      '2',
    ]),
  )
}

describe('a stream that never ends its line', () => {
  test.for(HTTP_TRANSPORT_CASES)(
    'fails each request at the default event limit, with memory bounded (%s)',
    async (transport) => {
      server = await startScriptServer((request, response) =>
        endless(request, response, `data: ${'a'.repeat(65_535)}`),
      )
      const rssBefore = process.memoryUsage().rss
      const outcome = await runAgainst(server.baseUrl, transport)
      if (outcome.kind !== 'generation') throw new Error(`a ${outcome.kind} run`)
      const { result, records } = outcome
      expect(result.completed + result.failed).toBe(2)
      expect(result.failed).toBe(2)
      for (const record of records)
        expect(record.error).toBe(lineTooLargeMessage(DEFAULT_STREAM_LIMITS.maxEventBytes))
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(RSS_GROWTH_LIMIT_BYTES)
    },
  )

  test('honours a configured event limit', async () => {
    process.env[STREAM_LIMIT_ENV.maxEventBytes] = String(256 * 1024)
    server = await startScriptServer((request, response) =>
      endless(request, response, `: ${'b'.repeat(4_094)}`),
    )
    const { result, records } = await runAgainst(server.baseUrl)
    expect(result.failed).toBe(2)
    expect(records[0]!.error).toBe(lineTooLargeMessage(256 * 1024))
  })

  test('stops keeping text at the configured output limit', async () => {
    process.env[STREAM_LIMIT_ENV.maxOutputChars] = '100000'
    server = await startScriptServer((request, response) =>
      endless(request, response, sse({ choices: [{ text: 'word '.repeat(1_000) }] })),
    )
    const { result, records } = await runAgainst(server.baseUrl)
    expect(result.failed).toBe(2)
    expect(records[0]!.error).toBe(outputTooLargeMessage(100_000))
  })
})
