import { describe, expect } from 'vitest'
import { validateModeFile } from '../src/report/result/schema/modes.ts'
import { smallRunFlags } from './faults/fault-helpers.ts'
import { readJsonFiles, readOnlyResult, runCli, test } from './helpers.ts'

// What the flag changes besides timing; the self-check's verdicts are tested in test/serial/.
describe('--client-check', () => {
  test('off skips the self-check: no line, no client_health key', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      ...smallRunFlags(sim.url, ['--num-prompts', '4']),
      '--client-check',
      'off',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain('Client self-check')
    expect(await readOnlyResult(tmpDir)).not.toHaveProperty('client_health')
  })

  test('a multi-turn run prints the self-check line and writes client_health', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      ...smallRunFlags(sim.url, ['--num-prompts', '3']),
      '--backend',
      'openai-chat',
      '--multi-turn',
      '--multi-turn-num-turns',
      '2',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^Client self-check: (ok|SATURATED|too short to judge) — /m)
    const [result] = Object.values(await readJsonFiles(tmpDir))
    expect(validateModeFile(result)).toEqual({ valid: true })
    expect(result).toHaveProperty('client_health.saturated')
    expect(result).toMatchObject({ client_health: { client_threads: 1, http_transport: 'lean' } })
    expect(Object.keys(result!).at(-1)).toBe('client_health')
  })

  test('an unknown value is a usage error naming the flag and its values', async () => {
    const run = await runCli(['serve', '--client-check', 'maybe'])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe('servebench: --client-check must be one of fail, warn, off (got "maybe")\n')
  })
})
