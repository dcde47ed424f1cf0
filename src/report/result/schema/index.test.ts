import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parsePythonJson, toPythonJson } from '../py-json.ts'
import { validateResultFile } from './index.ts'

const load = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../../../fixtures/results/${name}`, import.meta.url), 'utf8'))

describe('validateResultFile', () => {
  it('accepts the Python result files, detailed and not', () => {
    expect(validateResultFile(load('python-detailed.json'))).toEqual({ valid: true })
    expect(validateResultFile(load('python-summary.json'))).toEqual({ valid: true })
  })

  it('accepts the burstiness of a constant rate (load.constant, --burstiness inf) as servebench writes it', () => {
    const value = parsePythonJson(
      toPythonJson({ ...load('python-summary.json'), burstiness: Number.POSITIVE_INFINITY }),
    ) as Record<string, unknown>
    expect(value.burstiness).toBe(Number.POSITIVE_INFINITY)
    expect(validateResultFile(value)).toEqual({ valid: true })
    // Files of earlier servebench versions wrote the string.
    expect(validateResultFile({ ...value, burstiness: 'inf' })).toEqual({ valid: true })
  })

  it('names the key and the expected type of a wrong value', () => {
    const value = { ...load('python-summary.json'), completed: '3' }
    expect(validateResultFile(value)).toEqual({ valid: false, errors: ['result.completed must be integer'] })
  })

  it('reports every problem at once, nested paths included', () => {
    const value: Record<string, unknown> = {
      ...load('python-detailed.json'),
      request_rate: 'fast',
      p99_ttft_ms: null,
      itls: [[0.1, 'x']],
    }
    delete value.duration
    const check = validateResultFile(value)
    expect(check.valid).toBe(false)
    expect(check.valid ? [] : check.errors).toEqual(
      expect.arrayContaining([
        "result must have required property 'duration'",
        'result.request_rate must be number',
        'result.request_rate must be equal to constant',
        'result.itls.0.1 must be number',
        'result.p99_ttft_ms must be number',
      ]),
    )
  })

  it('rejects something that is not an object', () => {
    expect(validateResultFile([])).toEqual({ valid: false, errors: ['result must be object'] })
  })
})
