import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test as base, describe } from 'vitest'
import { DEFAULT_DRAIN_MS } from '../../src/runner/dispatcher.ts'
import { type ScriptServer, startScriptServer } from '../backends/script-server.ts'
import {
  expectAccounted,
  hostileFlags,
  neverAnswer,
  readResultFile,
  spawnCli,
} from '../hostile/hostile-helpers.ts'

// The first signal must end a run within the drain time plus this margin, whatever the phase.
const EXIT_MARGIN_MS = 1_000

// What the run sent besides the prompt-alignment probe (`/tokenize`, answered without JSON here,
// so the alignment is skipped).
function sent(s: ScriptServer): ScriptServer['requests'] {
  return s.requests.filter((r) => r.url !== '/tokenize')
}

// Each test has its own never-answering server and result folder, so the three that wait out the
// whole drain time can wait at once.
const test = base.extend<{ server: ScriptServer; dir: string }>({
  // biome-ignore lint/correctness/noEmptyPattern: Vitest fixtures take their dependencies by destructuring.
  server: async ({}, use) => {
    const server = await startScriptServer(neverAnswer)
    await use(server)
    await server.close()
  },
  // biome-ignore lint/correctness/noEmptyPattern: as above.
  dir: async ({}, use) => {
    const dir = await mkdtemp(join(tmpdir(), 'servebench-signals-'))
    await use(dir)
    await rm(dir, { recursive: true, force: true })
  },
})

describe('a signal against a server that never answers', () => {
  // Idle while they wait out the drain: run together, they add one drain time to the suite, not three.
  test.concurrent.for(['SIGINT', 'SIGTERM'] as const)(
    '%s after every request was sent (rate inf): exit 130 within the drain time, a valid partial result',
    async (signal, { server, dir, expect }) => {
      const cli = spawnCli(hostileFlags(server.baseUrl, ['--save-result', '--result-dir', dir]))
      await cli.waitFor(/Starting main benchmark run/)
      while (sent(server).length < 4) await new Promise((r) => setTimeout(r, 20))
      const sentAt = cli.kill(signal)
      const exit = await cli.exit
      expect(exit.code).toBe(130)
      expect(exit.atMs - sentAt).toBeLessThan(DEFAULT_DRAIN_MS + EXIT_MARGIN_MS)
      const result = await readResultFile(dir)
      expect(result.interrupted).toBe(true)
      expectAccounted(result, 4)
      expect(result.failed).toBe(4)
    },
  )

  test.concurrent('during the warm-ups: exit 130 within the drain time, nothing timed', async ({
    server,
    dir,
    expect,
  }) => {
    const cli = spawnCli(
      hostileFlags(server.baseUrl, ['--num-warmups', '2', '--save-result', '--result-dir', dir]),
    )
    await cli.waitFor(/Warming up with 2 requests/)
    while (sent(server).length < 2) await new Promise((r) => setTimeout(r, 20))
    const sentAt = cli.kill('SIGINT')
    const exit = await cli.exit
    expect(exit.code).toBe(130)
    expect(exit.atMs - sentAt).toBeLessThan(DEFAULT_DRAIN_MS + EXIT_MARGIN_MS)
    const result = await readResultFile(dir)
    expect(result.interrupted).toBe(true)
    expectAccounted(result, 0)
    expect(sent(server)).toHaveLength(2)
  })

  test('during the ready check', async ({ server, dir, expect }) => {
    const cli = spawnCli(
      hostileFlags(server.baseUrl, [
        '--ready-check-timeout-sec',
        '600',
        '--save-result',
        '--result-dir',
        dir,
      ]),
    )
    await cli.waitFor(/Starting initial single prompt test run/)
    while (sent(server).length < 1) await new Promise((r) => setTimeout(r, 20))
    const sentAt = cli.kill('SIGINT')
    const exit = await cli.exit
    expect(exit.code).toBe(130)
    expect(exit.atMs - sentAt).toBeLessThan(DEFAULT_DRAIN_MS + EXIT_MARGIN_MS)
    expect((await readResultFile(dir)).interrupted).toBe(true)
  })

  test('during the /v1/models lookup', async ({ server, dir, expect }) => {
    const args = hostileFlags(server.baseUrl, ['--save-result', '--result-dir', dir])
    args.splice(args.indexOf('--model'), 2)
    const cli = spawnCli(args)
    while (sent(server).length < 1) await new Promise((r) => setTimeout(r, 20))
    const sentAt = cli.kill('SIGINT')
    const exit = await cli.exit
    expect(exit.code).toBe(130)
    expect(exit.atMs - sentAt).toBeLessThan(DEFAULT_DRAIN_MS + EXIT_MARGIN_MS)
    const result = await readResultFile(dir)
    expect(result.interrupted).toBe(true)
    expectAccounted(result, 0)
  })

  test('during dataset generation', async ({ server, dir, expect }) => {
    const args = hostileFlags(server.baseUrl, ['--save-result', '--result-dir', dir])
    args.splice(args.indexOf('--random-input-len'), 2, '--random-input-len', '4000')
    args.splice(args.indexOf('--num-prompts'), 2, '--num-prompts', '5000')
    const cli = spawnCli(args)
    await cli.waitFor(/servebench serve: /)
    await new Promise((r) => setTimeout(r, 500))
    const sentAt = cli.kill('SIGINT')
    const exit = await cli.exit
    expect(exit.code).toBe(130)
    expect(exit.atMs - sentAt).toBeLessThan(DEFAULT_DRAIN_MS + EXIT_MARGIN_MS)
    const result = await readResultFile(dir)
    expect(result.interrupted).toBe(true)
    expectAccounted(result, 0)
    expect(sent(server)).toHaveLength(0)
  })

  test('a second signal aborts the drain at once and still writes the result', async ({
    server,
    dir,
    expect,
  }) => {
    const cli = spawnCli(hostileFlags(server.baseUrl, ['--save-result', '--result-dir', dir]))
    await cli.waitFor(/Starting main benchmark run/)
    while (sent(server).length < 4) await new Promise((r) => setTimeout(r, 20))
    cli.kill('SIGINT')
    await cli.waitFor(/SIGINT received/)
    const secondAt = cli.kill('SIGINT')
    const exit = await cli.exit
    expect(exit.code).toBe(130)
    expect(exit.atMs - secondAt).toBeLessThan(EXIT_MARGIN_MS)
    const result = await readResultFile(dir)
    expect(result.interrupted).toBe(true)
    expectAccounted(result, 4)
  })
})
