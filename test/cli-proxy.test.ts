import { describe, expect } from 'vitest'
import { startForwardProxy } from './forward-proxy.ts'
import { runCli, test } from './helpers.ts'

const SMALL = [
  '--tokenizer',
  'cl100k_base',
  '--random-input-len',
  '16',
  '--random-output-len',
  '4',
  '--disable-tqdm',
]
const NO_ENV_PROXY = { http_proxy: '', https_proxy: '', no_proxy: '', HTTPS_PROXY: '' }

// HTTP_PROXY / NO_PROXY as Python's aiohttp session (trust_env) honours them.
describe('servebench serve behind an HTTP proxy', () => {
  test('sends the probes and every request through HTTP_PROXY, and none for a NO_PROXY host', async ({
    sim,
  }) => {
    // Only the proxy knows `sim.invalid`: a request that succeeds went through it.
    const proxy = await startForwardProxy({ 'sim.invalid': '127.0.0.1' })
    try {
      const [through, direct] = await Promise.all([
        runCli(
          [
            'serve',
            '--base-url',
            `http://sim.invalid:${sim.port}`,
            ...SMALL,
            '--num-prompts',
            '6',
            '--max-concurrency',
            '2',
            '--ready-check-timeout-sec',
            '10',
          ],
          { env: { ...NO_ENV_PROXY, HTTP_PROXY: proxy.url, NO_PROXY: '' } },
        ),
        runCli(['serve', '--base-url', sim.url, ...SMALL, '--num-prompts', '3', '--model', 'm'], {
          env: { ...NO_ENV_PROXY, http_proxy: proxy.url, NO_PROXY: 'localhost,127.0.0.1' },
        }),
      ])
      expect(through.stderr).toBe('')
      expect(through.code).toBe(0)
      expect(through.stdout).toMatch(/^Successful requests: +6 *$/m)
      expect(direct.code).toBe(0)
      expect(direct.stdout).toMatch(/^Successful requests: +3 *$/m)
      // One tunnel per socket: the /v1/models probe's, then the run's (the ready check's
      // socket is reused); never one for 127.0.0.1.
      expect(proxy.calls.length).toBeGreaterThanOrEqual(2)
      expect(new Set(proxy.calls)).toEqual(new Set([`sim.invalid:${sim.port}`]))
      expect(sim.stats().requestsFinished).toBe(6 + 1 + 3)
    } finally {
      await proxy.close()
    }
  })
})
