import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runVitest } from '../vitest-helpers.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-invalid-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

it('a benchmark whose client event loop is blocked on purpose is invalid, never a fail', async () => {
  const run = await runVitest('slo', ['bench', '--run', 'slo-invalid'], { SB_RESULT_DIR: dir })
  expect(run.code).toBe(1)
  expect(run.output).toMatch(
    // The suite checks median TTFT: its client is judged at the TTFT's scale.
    /SLO invalid: event-loop delay p99 \d+(\.\d)? ms \(limit \d+(\.\d)? ms for a median TTFT of [\d.]+ ms\): the client, not the server, set these latencies/,
  )
  expect(run.output).toMatch(/! median TTFT \d+\.\d ms ≤ 5000 ms/)
  expect(run.output).toContain('servebench ! slo-invalid.bench.ts › chat > starved client [invalid]')
  const summary = JSON.parse(await readFile(join(dir, 'servebench-summary.json'), 'utf8'))
  const [bench] = summary.benchmarks
  expect(bench).toMatchObject({ state: 'failed', verdict: 'invalid' })
  expect(bench.invalidReason).toMatch(/^event-loop delay p99/)
  expect(bench.verdicts).toMatchObject([
    { matcher: 'toMeetSLO', verdict: 'invalid', checks: [{ verdict: 'invalid' }] },
  ])
})
