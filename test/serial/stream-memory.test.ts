import { afterEach, describe, expect, test } from 'vitest'
import { DEFAULT_STREAM_LIMITS, lineTooLargeMessage } from '../../src/backends/stream-limits.ts'
import { type ScriptServer, startScriptServer } from '../backends/script-server.ts'
import { endless, runAgainst } from '../hostile/endless-stream.ts'

// An upper bound on memory, so here, alone on the machine: the run's own growth of this process's
// RSS while two requests read a line that never ends until the line limit (16 MiB) stops them.
const RSS_GROWTH_LIMIT_BYTES = 350 * 1024 * 1024

let server: ScriptServer | undefined
afterEach(async () => {
  await server?.close()
})

describe('a stream that never ends its line', () => {
  test('is read with memory bounded by the line limit', async () => {
    server = await startScriptServer((request, response) =>
      endless(request, response, `data: ${'a'.repeat(65_535)}`),
    )
    const rssBefore = process.memoryUsage().rss
    const outcome = await runAgainst(server.baseUrl)
    if (outcome.kind !== 'generation') throw new Error(`a ${outcome.kind} run`)
    for (const record of outcome.records)
      expect(record.error).toBe(lineTooLargeMessage(DEFAULT_STREAM_LIMITS.maxEventBytes))
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(RSS_GROWTH_LIMIT_BYTES)
  })
})
