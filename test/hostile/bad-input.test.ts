import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect } from 'vitest'
import { type ScriptServer, startScriptServer } from '../backends/script-server.ts'
import { ROOT, runCli, test } from '../helpers.ts'
import { hostileFlags, neverAnswer } from './hostile-helpers.ts'

let server: ScriptServer | undefined
afterEach(() => server?.close())

describe('bad input is refused before anything is sent (exit 2)', () => {
  test('a header value holding CR/LF, named without its value', async () => {
    server = await startScriptServer(neverAnswer)
    const run = await runCli([...hostileFlags(server.baseUrl), '--header', 'X-Token=abc\r\nInjected: 1'])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe('servebench: --header X-Token value must not contain CR, LF or NUL characters\n')
    expect(server.requests).toHaveLength(0)
  })

  test('--random-input-len 1000000000 gets a message, not a V8 fatal error', async () => {
    server = await startScriptServer(neverAnswer)
    const run = await runCli([...hostileFlags(server.baseUrl), '--random-input-len', '1000000000'])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      'servebench: --random-input-len must be at most 10000000 tokens (got 1000000000)\n',
    )
    expect(server.requests).toHaveLength(0)
  })

  test('a bad SERVEBENCH_MAX_SSE_EVENT_BYTES', async () => {
    server = await startScriptServer(neverAnswer)
    const run = await runCli(hostileFlags(server.baseUrl), { env: { SERVEBENCH_MAX_SSE_EVENT_BYTES: '-1' } })
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      'servebench: SERVEBENCH_MAX_SSE_EVENT_BYTES must be a positive integer (got "-1")\n',
    )
    expect(server.requests).toHaveLength(0)
  })
})

describe('compare', () => {
  test('refuses a JSON object that is not a result', async ({ tmpDir }) => {
    const other = join(tmpDir, 'package.json')
    await writeFile(other, JSON.stringify({ name: 'x', version: '1.0.0' }))
    const run = await runCli(['compare', join(ROOT, 'fixtures/results/compare-a.json'), other])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `servebench: ${other} is not a benchmark result (the schema of servebench serve and vllm bench serve): it has no "date", "endpoint_type", "backend", "label" and 18 more keys\n`,
    )
  })
})

describe('merge-summaries', () => {
  test('names the field of a file that is not a run summary, and a folder without one', async ({
    tmpDir,
  }) => {
    const other = join(tmpDir, 'servebench-summary.json')
    await writeFile(
      other,
      JSON.stringify({ date: 'd', reason: 'passed', benchmarks: [{ file: 'a.bench.ts' }] }),
    )
    const run = await runCli(['merge-summaries', tmpDir, '--output-dir', join(tmpDir, 'out')])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      [
        'servebench: Invalid configuration (5 issues):',
        ...[
          'name must be a string',
          'fingerprint must be a string',
          'state must be one of passed, failed, skipped, pending (got undefined)',
          'verdicts must be an array',
          'errors must be an array',
        ].map((p) => `  - ${other} is not a servebench-summary.json: benchmarks[0].${p}`),
        '',
      ].join('\n'),
    )
    const missing = await runCli(['merge-summaries', join(tmpDir, 'out')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(`servebench: ${join(tmpDir, 'out')} cannot be read (ENOENT)\n`)
  })
})

describe('the /v1/models lookup', () => {
  test('honours --request-timeout against a server that never answers', async () => {
    server = await startScriptServer(() => {}) // Reads the request, never answers.
    const args = hostileFlags(server.baseUrl, ['--request-timeout', '1'])
    args.splice(args.indexOf('--model'), 2)
    const run = await runCli(args, { timeoutMs: 20_000 })
    expect(run.code).toBe(3)
    expect(run.stderr).toContain(`Cannot read the served model from ${server.baseUrl}/v1/models:`)
    expect(run.stderr).toContain('timeout')
  })
})
