import { afterEach, describe, expect } from 'vitest'
import { type ScriptServer, startScriptServer } from '../backends/script-server.ts'
import { runCli, test } from '../helpers.ts'
import { hostileFlags, neverAnswer, spawnCli } from './hostile-helpers.ts'

let server: ScriptServer | undefined
afterEach(() => server?.close())

describe('what the console says about a run stopped before it began', () => {
  test.for([
    {
      phase: 'the ready check',
      flags: ['--ready-check-timeout-sec', '60'],
      waitFor: /Starting initial single prompt test run/,
      never: ['Initial test run completed.', 'Starting main benchmark run...', 'Traffic request rate'],
    },
    {
      phase: 'the warm-ups',
      flags: ['--num-warmups', '2'],
      waitFor: /Warming up with 2 requests/,
      never: ['Warmup run completed.', 'Starting main benchmark run...', 'Traffic request rate'],
    },
  ])(
    'SIGINT during $phase: no line about a run that will not start',
    async ({ flags, waitFor, never }, { tmpDir }) => {
      server = await startScriptServer(neverAnswer)
      // An interrupted run writes what it measured: into the test's folder.
      const cli = spawnCli([...hostileFlags(server.baseUrl), ...flags, '--result-dir', tmpDir])
      await cli.waitFor(waitFor)
      cli.kill('SIGINT')
      const { code } = await cli.exit
      expect(code).toBe(130)
      for (const line of never) expect(cli.stdout()).not.toContain(line)
    },
  )
})

describe('multi-turn', () => {
  test('more than 10 conversations waiting at once draw no MaxListenersExceededWarning', async ({ sim }) => {
    const run = await runCli([
      'serve',
      '--backend',
      'openai-chat',
      '--base-url',
      sim.url,
      '--model',
      'servebench/sim-model',
      '--tokenizer',
      'cl100k_base',
      '--random-input-len',
      '16',
      '--random-output-len',
      '4',
      '--multi-turn',
      '--multi-turn-num-turns',
      '3',
      '--multi-turn-delay-ms',
      '30',
      '--num-prompts',
      '24',
      '--disable-tqdm',
    ])
    expect(run.code).toBe(0)
    expect(run.stderr).not.toContain('MaxListenersExceededWarning')
  })
})
