import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
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

let dir: string
let server: ScriptServer

// What the run sent besides the prompt-alignment probe (`/tokenize`, answered without JSON here,
// so the alignment is skipped).
function sent(s: ScriptServer): ScriptServer['requests'] {
  return s.requests.filter((r) => r.url !== '/tokenize')
}
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-signals-'))
  server = await startScriptServer(neverAnswer)
})
afterEach(async () => {
  await server.close()
  await rm(dir, { recursive: true, force: true })
})

describe('a signal against a server that never answers', () => {
  test.each(['SIGINT', 'SIGTERM'] as const)(
    '%s after every request was sent (rate inf): exit 130 within the drain time, a valid partial result',
    async (signal) => {
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

  test('during the warm-ups: exit 130 within the drain time, nothing timed', async () => {
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

  test('during the ready check', async () => {
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

  test('during the /v1/models lookup', async () => {
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

  test('during dataset generation', async () => {
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

  test('a second signal aborts the drain at once and still writes the result', async () => {
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
