import { afterEach, describe, expect, test } from 'vitest'
import {
  DEFAULT_STREAM_LIMITS,
  lineTooLargeMessage,
  outputTooLargeMessage,
  STREAM_LIMIT_ENV,
} from '../../src/backends/stream-limits.ts'
import { HTTP_TRANSPORT_CASES, type ScriptServer, sse, startScriptServer } from '../backends/script-server.ts'
import { endless, runAgainst } from './endless-stream.ts'

let server: ScriptServer | undefined
afterEach(async () => {
  await server?.close()
  delete process.env[STREAM_LIMIT_ENV.maxEventBytes]
  delete process.env[STREAM_LIMIT_ENV.maxOutputChars]
})

describe('a stream that never ends its line', () => {
  test.for(HTTP_TRANSPORT_CASES)(
    'fails each request at the default event limit, with memory bounded (%s)',
    async (transport) => {
      server = await startScriptServer((request, response) =>
        endless(request, response, `data: ${'a'.repeat(65_535)}`),
      )
      const outcome = await runAgainst(server.baseUrl, transport)
      if (outcome.kind !== 'generation') throw new Error(`a ${outcome.kind} run`)
      const { result, records } = outcome
      expect(result.completed + result.failed).toBe(2)
      expect(result.failed).toBe(2)
      for (const record of records)
        expect(record.error).toBe(lineTooLargeMessage(DEFAULT_STREAM_LIMITS.maxEventBytes))
      // That memory stays bounded meanwhile is judged in test/serial/stream-memory.test.ts.
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
