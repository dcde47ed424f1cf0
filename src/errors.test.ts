import { describe, expect, it } from 'vitest'
import { ConfigError, EXIT_CODES, exitCodeFor, serializeError } from './errors.ts'

describe('ConfigError', () => {
  it('names the single bad field in its message', () => {
    const error = new ConfigError([{ path: '--num-prompts', message: 'must be at least 1 (got 0)' }])
    expect(error.message).toBe('--num-prompts must be at least 1 (got 0)')
    expect(error.code).toBe('SERVEBENCH_CONFIG')
  })

  it('lists every issue when there are several', () => {
    const error = new ConfigError([
      { path: '--num-prompts', message: 'must be at least 1 (got 0)' },
      { path: '--burstiness', message: 'must be > 0 (got 0); 1 is Poisson' },
    ])
    expect(error.message).toMatchInlineSnapshot(`
      "Invalid configuration (2 issues):
        - --num-prompts must be at least 1 (got 0)
        - --burstiness must be > 0 (got 0); 1 is Poisson"
    `)
  })

  it('maps to the usage exit code and serialises with its code', () => {
    const error = new ConfigError([{ path: '--seed', message: 'must be an integer' }])
    expect(exitCodeFor(error)).toBe(EXIT_CODES.usage)
    expect(serializeError(error)).toMatchObject({ name: 'ConfigError', code: 'SERVEBENCH_CONFIG' })
  })
})
