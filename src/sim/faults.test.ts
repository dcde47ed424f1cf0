import { describe, expect, it } from 'vitest'
import { parseSimArgs } from '../cli/sim-args.ts'
import { ConfigError } from '../errors.ts'
import { FaultInjector, formatFault, parseFaultFlag, resolveFaults } from './faults.ts'

function issuesOf(fn: () => unknown): string[] {
  try {
    fn()
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((i) => `${i.path} ${i.message}`)
    throw error
  }
  throw new Error('expected a ConfigError')
}

describe('--fault grammar', () => {
  it('parses a kind with a trigger and parameters, applying defaults', () => {
    expect(parseFaultFlag('reset:p=0.1,after=3')).toEqual({ kind: 'reset', p: 0.1, after: 3 })
    expect(parseFaultFlag('http500:nth=3')).toEqual({ kind: 'http500', nth: 3 })
    expect(parseFaultFlag('http429:every=2')).toEqual({ kind: 'http429', every: 2, retryAfterS: 1 })
    expect(parseFaultFlag('stall')).toEqual({ kind: 'stall', after: 1, ms: 1000 })
    expect(parseFaultFlag('slow-headers:ms=250')).toEqual({ kind: 'slow-headers', ms: 250 })
    expect(parseFaultFlag('no-done')).toEqual({ kind: 'no-done' })
    expect(parseFaultFlag('http503:retry-after=0')).toEqual({ kind: 'http503', retryAfterS: 0 })
  })

  it('formats a fault back to the flag form', () => {
    expect(formatFault(parseFaultFlag('stall:every=2,ms=500'))).toBe('stall:every=2,after=1,ms=500')
  })

  it('names the flag, the bad part and what is valid', () => {
    expect(issuesOf(() => parseFaultFlag('explode'))).toEqual([
      '--fault has unknown fault kind "explode"; valid: http500, http429, http503, reset, stall, malformed-json, no-done, byte-split, utf8-split, slow-headers in "explode"',
    ])
    expect(issuesOf(() => parseFaultFlag('reset:q=1'))).toEqual([
      '--fault has unknown key "q" in "reset:q=1"; valid keys: p, every, nth, after, ms, retry-after',
    ])
    expect(issuesOf(() => parseFaultFlag('reset:p=x'))).toEqual([
      '--fault needs a number for p in "reset:p=x" (got "x")',
    ])
    expect(issuesOf(() => parseFaultFlag('reset:p=2,nth=0'))).toEqual([
      '--fault p must be a number between 0 and 1 (got 2) in "reset:p=2,nth=0"',
      '--fault nth must be an integer >= 1 (got 0) in "reset:p=2,nth=0"',
      '--fault sets p and nth in "reset:p=2,nth=0"; use at most one of p, every, nth',
    ])
    expect(issuesOf(() => parseFaultFlag('http500:ms=5'))).toEqual([
      '--fault ms does not apply to http500 in "http500:ms=5"; it applies to stall, slow-headers',
    ])
  })

  it('reports every bad --fault of servebench sim at once', () => {
    expect(issuesOf(() => parseSimArgs(['--fault', 'nope', '--fault', 'stall:ms=-1']))).toEqual([
      '--fault has unknown fault kind "nope"; valid: http500, http429, http503, reset, stall, malformed-json, no-done, byte-split, utf8-split, slow-headers in "nope"',
      '--fault ms must be a number of milliseconds >= 0 (got -1) in "stall:ms=-1"',
    ])
    expect(parseSimArgs(['--fault', 'reset:p=0.5', '--fault=http500:nth=2']).faults).toEqual([
      { kind: 'reset', p: 0.5, after: 1 },
      { kind: 'http500', nth: 2 },
    ])
  })

  it('resolves objects and strings with their list index in the path', () => {
    expect(resolveFaults([{ kind: 'http500', nth: 1 }, 'stall:ms=5'])).toEqual([
      { kind: 'http500', nth: 1 },
      { kind: 'stall', after: 1, ms: 5 },
    ])
    expect(
      issuesOf(() => resolveFaults([{ kind: 'reset', every: 1.5 }, { kind: 'stall', when: 1 } as never])),
    ).toEqual([
      'faults[0] every must be an integer >= 1 (got 1.5)',
      'faults[1] has unknown field "when"; valid: kind, p, every, nth, after, ms, retryAfterS',
    ])
  })
})

describe('FaultInjector', () => {
  it('fires nth once, every on multiples, and an untriggered fault always', () => {
    const injector = new FaultInjector(0, resolveFaults(['http500:nth=2', 'reset:every=3', 'byte-split']))
    const plans = Array.from({ length: 6 }, () => injector.next())
    expect(plans.map((p) => p.error?.kind ?? '-')).toEqual(['-', 'http500', '-', '-', '-', '-'])
    expect(plans.map((p) => p.stream.map((f) => f.kind).join('+'))).toEqual([
      'byte-split',
      'byte-split',
      'reset+byte-split',
      'byte-split',
      'byte-split',
      'reset+byte-split',
    ])
  })

  it('draws p from a seeded generator: same seed, same requests', () => {
    const draw = (seed: number) => {
      const injector = new FaultInjector(seed, resolveFaults(['http500:p=0.3']))
      return Array.from({ length: 200 }, () => (injector.next().error ? 1 : 0))
    }
    const a = draw(7)
    expect(draw(7)).toEqual(a)
    expect(draw(8)).not.toEqual(a)
    const hits = a.reduce((s: number, x) => s + x, 0)
    expect(hits).toBeGreaterThan(30)
    expect(hits).toBeLessThan(90)
  })

  it('restarts the count when the faults are replaced', () => {
    const injector = new FaultInjector(0, resolveFaults(['http500:nth=1']))
    expect(injector.next().error?.kind).toBe('http500')
    expect(injector.next().error).toBeUndefined()
    injector.set(resolveFaults(['http500:nth=1']))
    expect(injector.next().error?.kind).toBe('http500')
  })
})
