import { describe, expect, it } from 'vitest'
import { resolveArgv } from '../../test/config-doors.ts'

const resolve = (args: string[], env: Record<string, string> = {}) =>
  resolveArgv(['--model', 'm', '--tokenizer', 'cl100k_base', ...args], env)

describe('--client-threads, --segment, --start-at', () => {
  it('reads each flag; auto is the default, and one thread is asked for as 1', () => {
    const config = resolve(['--client-threads', '4', '--segment', '2/4', '--start-at', '1800000000000'])
    expect(config.clientThreads).toBe(4)
    expect(config.segment).toEqual({ index: 2, count: 4, source: '--segment' })
    expect(config.startAtEpochMs).toBe(1_800_000_000_000)
    expect(resolve([]).clientThreads).toBe('auto')
    expect(resolve(['--client-threads', '1']).clientThreads).toBe(1)
    expect(resolve(['--client-threads', 'auto']).clientThreads).toBe('auto')
  })

  it('lets the modes of several runs keep auto and 1, and refuses a thread count with them', () => {
    expect(resolve(['--num-runs', '3']).numRuns).toBe(3)
    expect(resolve(['--client-threads', 'auto', '--num-runs', '3']).clientThreads).toBe('auto')
    expect(resolve(['--client-threads', '1', '--num-runs', '3']).clientThreads).toBe(1)
    expect(() => resolve(['--client-threads', '2', '--num-runs', '3'])).toThrow(
      '--client-threads applies to a single run; it cannot be combined with --num-runs',
    )
  })

  it('takes the segment from SERVEBENCH_SEGMENT, then an Indexed Job, and the flag wins', () => {
    expect(resolve([], { SERVEBENCH_SEGMENT: '1/2' }).segment).toEqual({
      index: 1,
      count: 2,
      source: 'SERVEBENCH_SEGMENT',
    })
    const job = { JOB_COMPLETION_INDEX: '3', SERVEBENCH_SEGMENT_COUNT: '4' }
    expect(resolve([], job).segment).toEqual({ index: 3, count: 4, source: 'JOB_COMPLETION_INDEX' })
    // An Indexed Job without a count is not a segmented run.
    expect(resolve([], { JOB_COMPLETION_INDEX: '3' }).segment).toBeUndefined()
    expect(resolve(['--segment', '0/2'], { SERVEBENCH_SEGMENT: '1/2' }).segment?.index).toBe(0)
  })

  it('names every bad value and what is valid, all at once', () => {
    expect(() =>
      resolve(['--client-threads', 'many', '--segment', '4/4', '--start-at', 'soon']),
    ).toThrowErrorMatchingInlineSnapshot(`
      [ConfigError: Invalid configuration (3 issues):
        - --client-threads must be an integer from 1 to 64, or auto (got "many")
        - --segment must be i/n with 0 <= i < n (0-based, as JOB_COMPLETION_INDEX), e.g. 0/4 … 3/4 (got "4/4")
        - --start-at must be a Unix time in milliseconds, e.g. $(( $(date +%s) * 1000 + 10000 )) for 10 s from now (got "soon")]
    `)
    expect(() => resolve([], { JOB_COMPLETION_INDEX: '5', SERVEBENCH_SEGMENT_COUNT: '2' })).toThrow(
      'JOB_COMPLETION_INDEX and SERVEBENCH_SEGMENT_COUNT must give an index below the count (got 5/2)',
    )
    expect(() => resolve(['--segment', '0/2', '--num-runs', '3'])).toThrow(
      '--segment applies to a single run; it cannot be combined with --num-runs',
    )
  })
})
