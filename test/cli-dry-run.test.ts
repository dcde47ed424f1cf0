import { describe, expect } from 'vitest'
import { resolveServeBench } from '../src/options/dry-run.ts'
import { datasets, endpoint, load } from '../src/vitest/runtime/builders.ts'
import { runCli, test } from './helpers.ts'
import { startHttpServer } from './server-helpers.ts'

describe('servebench serve --dry-run', () => {
  test('prints the resolved configuration, sends nothing, and equals resolveServeBench', async () => {
    let requests = 0
    const server = await startHttpServer((_req, res) => {
      requests++
      res.statusCode = 500
      res.end()
    })
    try {
      const run = await runCli(
        [
          'serve',
          '--dry-run',
          '--base-url',
          server.url,
          '--backend',
          'openai-chat',
          '--model',
          'm',
          '--header',
          'Authorization=Bearer secret-token',
          '--num-prompts',
          '20',
          '--random-input-len',
          '64',
          '--max-concurrency',
          '4',
          '--label',
          'dry',
        ],
        // The CLI's own default, as a suite gets it (the helper would add --client-check warn).
        { env: { OPENAI_API_KEY: 'sk-secret' }, defaultClientCheck: true },
      )
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(requests).toBe(0)
      expect(run.stdout).not.toContain('secret')
      const printed = JSON.parse(run.stdout) as Record<string, unknown>
      expect(printed).toMatchObject({
        endpoint: {
          backend: 'openai-chat',
          baseUrl: server.url,
          headers: { Authorization: '[redacted]' },
          apiKey: '[redacted]',
        },
        load: { requestRate: 'inf', burstiness: 1, maxConcurrency: 4 },
        numPrompts: 20,
        label: 'dry',
      })
      expect(printed.fingerprint).toMatch(/^[0-9a-f]{16}$/)
      const suite = resolveServeBench(
        {
          endpoint: endpoint({
            backend: 'openai-chat',
            model: 'm',
            headers: { Authorization: 'Bearer secret-token' },
          }),
          dataset: datasets.random({ numPrompts: 20, inputLen: 64 }),
          load: load.closed({ concurrency: 4 }),
        },
        { name: 'dry', defaultBaseUrl: server.url, env: { OPENAI_API_KEY: 'sk-secret' } },
      )
      expect(suite).toEqual(printed)
    } finally {
      await server.close()
    }
  })

  test('exits 2 with every issue, as a run does', async () => {
    const run = await runCli(['serve', '--dry-run', '--max-concurrency', '0', '--random-batch-size', '4'])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('--max-concurrency must be at least 1 (got 0)')
    expect(run.stderr).toContain('--random-batch-size must be 1 with a generation backend (got 4)')
  })
})
