import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { validateResultFile } from '../../src/report/result/schema/index.ts'
import { startSimulator } from '../../src/sim/server.ts'
import { runCli, test } from '../helpers.ts'
import { spawnCli } from '../hostile/hostile-helpers.ts'
import { startHttpServer } from '../server-helpers.ts'
import { smallRunFlags } from './fault-helpers.ts'

async function readResults(dir: string): Promise<{ text: string; json: Record<string, unknown> }[]> {
  const files = await readdir(dir)
  return Promise.all(
    files.map(async (name) => {
      const text = await readFile(join(dir, name), 'utf8')
      const json = JSON.parse(text) as Record<string, unknown>
      expect(validateResultFile(json)).toEqual({ valid: true })
      return { text, json }
    }),
  )
}

describe('servebench serve under faults', () => {
  test('SIGTERM stops sending, drains, and writes a valid partial result marked interrupted', async ({
    sim,
    tmpDir,
  }) => {
    // Signalled once the timed run has started (1 s of 10 at 20 req/s), whatever the machine's speed.
    const cli = spawnCli([
      'serve',
      ...smallRunFlags(sim.url, ['--num-prompts', '200', '--request-rate', '20']),
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    await cli.waitFor(/Starting main benchmark run/)
    await new Promise((r) => setTimeout(r, 1_000))
    cli.kill('SIGTERM')
    const exit = await cli.exit
    const run = { code: exit.code, stderr: cli.stderr() }
    expect(run.code).toBe(130)
    expect(run.stderr).toContain('SIGTERM received')
    const [result] = await readResults(tmpDir)
    const sent = (result!.json.completed as number) + (result!.json.failed as number)
    expect(sent).toBeGreaterThan(0)
    expect(sent).toBeLessThan(200)
    expect(result!.json.interrupted).toBe(true)
    expect(Object.keys(result!.json).at(-1)).toBe('interrupted')
  })

  test('a finished run has no interrupted key', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      ...smallRunFlags(sim.url, ['--num-prompts', '4']),
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    const [result] = await readResults(tmpDir)
    expect(result!.json).not.toHaveProperty('interrupted')
  })

  test('warns above --max-failure-ratio and exits 1 above --fail-on-error-ratio', async ({ sim, tmpDir }) => {
    sim.setFaults(['http500:every=4'])
    const args = ['serve', ...smallRunFlags(sim.url), '--save-result', '--result-dir', tmpDir]
    const warned = await runCli([...args, '--result-filename', 'warned.json'])
    expect(warned.code).toBe(0)
    expect(warned.stderr).toContain(
      'servebench: WARNING: 5 of 20 requests failed (25%), above --max-failure-ratio 0.05 (5%)\n',
    )
    sim.setFaults(['http500:every=4'])
    const gated = await runCli([
      ...args,
      ...['--result-filename', 'gated.json', '--max-failure-ratio', '0.5', '--fail-on-error-ratio', '0.2'],
    ])
    expect(gated.code).toBe(1)
    expect(gated.stderr).not.toContain('WARNING')
    expect(gated.stderr).toContain(
      'servebench: FAILED: 5 of 20 requests failed (25%), above --fail-on-error-ratio 0.2 (20%)\n',
    )
    // The result is written either way.
    expect((await readdir(tmpDir)).sort()).toEqual(['gated.json', 'warned.json'])
  })

  test('reports retries on stderr', async ({ sim }) => {
    sim.setFaults(['http503:nth=1', 'http503:nth=2'])
    const run = await runCli([
      'serve',
      ...smallRunFlags(sim.url, ['--num-prompts', '3', '--max-concurrency', '1', '--max-retries', '3']),
    ])
    expect(run.code).toBe(0)
    expect(run.stderr).toContain('servebench: 2 retries for 1 request (1 recovered; --max-retries 3)\n')
  })

  test('bad ratio and retry flags exit 2 naming the flag', async () => {
    const run = await runCli(['serve', '--max-retries', '-1', '--fail-on-error-ratio', '1.5'])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      'servebench: Invalid configuration (2 issues):\n' +
        '  - --max-retries must be at least 0 (got -1)\n' +
        '  - --fail-on-error-ratio must be a fraction between 0 and 1, such as 0.05 (got "1.5")\n',
    )
  })
})

describe('secrets never leave the process', () => {
  const KEY = 'sk-servebench-secret-key-1234'
  const HEADER = 'hdr-secret-value-5678'

  test('a wrong API key gives counted 401 failures; no secret in stdout, stderr or the result', async ({
    tmpDir,
  }) => {
    const sim = await startSimulator({ ttftMs: 40, itlMs: 10, apiKey: 'the-right-key' })
    try {
      const run = await runCli(
        [
          'serve',
          ...smallRunFlags(sim.url, ['--num-prompts', '4']),
          '--header',
          `X-Team-Token=${HEADER}`,
          '--save-result',
          '--save-detailed',
          '--result-dir',
          tmpDir,
        ],
        { env: { OPENAI_API_KEY: KEY } },
      )
      // No request succeeded: exit 1 (docs/errors.md).
      expect(run.code).toBe(1)
      const [result] = await readResults(tmpDir)
      expect(result!.json).toMatchObject({ completed: 0, failed: 4 })
      expect((result!.json.errors as string[])[0]).toMatch(/^HTTP 401 Unauthorized/)
      for (const text of [run.stdout, run.stderr, result!.text]) {
        expect(text).not.toContain(KEY)
        expect(text).not.toContain(HEADER)
      }

      const right = await runCli(['serve', ...smallRunFlags(sim.url, ['--num-prompts', '4'])], {
        env: { OPENAI_API_KEY: 'the-right-key' },
      })
      expect(right.code).toBe(0)
      expect(right.stdout).toMatch(/^Successful requests: +4 *$/m)
    } finally {
      await sim.close()
    }
  })

  test('a server that echoes the credentials: the error texts are redacted', async ({ tmpDir }) => {
    const server = await startHttpServer((req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(`denied for ${req.headers.authorization} with ${req.headers['x-team-token']}`)
    })
    const url = `http://user:pw-in-url-9999@127.0.0.1:${server.port}`
    try {
      const run = await runCli(
        [
          'serve',
          ...smallRunFlags(url, ['--num-prompts', '3']),
          '--header',
          `X-Team-Token=${HEADER}`,
          '--save-result',
          '--save-detailed',
          '--result-dir',
          tmpDir,
        ],
        { env: { OPENAI_API_KEY: KEY } },
      )
      // No request succeeded: exit 1 (docs/errors.md).
      expect(run.code).toBe(1)
      const [result] = await readResults(tmpDir)
      expect((result!.json.errors as string[])[0]).toBe(
        'HTTP 500 Internal Server Error: denied for Bearer [redacted] with [redacted]',
      )
      expect(run.stdout).toContain('servebench serve: openai http://[redacted]@127.0.0.1:')
      for (const text of [run.stdout, run.stderr, result!.text]) {
        expect(text).not.toContain(KEY)
        expect(text).not.toContain(HEADER)
        expect(text).not.toContain('pw-in-url-9999')
      }
    } finally {
      await server.close()
    }
  })

  test('a malformed --header is reported without its value', async () => {
    const run = await runCli(['serve', '--header', `=${HEADER}`])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      'servebench: --header must be KEY=VALUE pairs (got a value without a KEY; not shown, headers may hold secrets)\n',
    )
  })
})
