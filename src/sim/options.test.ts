import { describe, expect, it } from 'vitest'
import { parseSimArgs, SIM_FLAGS, simUsage } from '../cli/sim-args.ts'
import { ConfigError } from '../errors.ts'
import { DEFAULT_SIM_OPTIONS, resolveSimOptions } from './options.ts'

function issuesOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).code).toBe('SERVEBENCH_CONFIG')
    return (error as ConfigError).issues
  }
  throw new Error('expected a ConfigError')
}

const fakeTokenizer = () => ({ encode: () => [], decode: () => '' })

describe('parseSimArgs', () => {
  it('reads --flag value and --flag=value', () => {
    expect(
      parseSimArgs([
        '--port',
        '8000',
        '--model=org/m',
        '--decode-base-ms',
        '2.5',
        '--max-num-seqs=64',
        '--tokenizer',
        'o200k_base',
        '--api-key',
        'k',
      ]),
    ).toEqual({
      port: 8000,
      model: 'org/m',
      decodeBaseMs: 2.5,
      maxNumSeqs: 64,
      tokenizer: 'o200k_base',
      apiKey: 'k',
    })
  })

  it('reads a bare boolean and an explicit one', () => {
    expect(parseSimArgs(['--record-timings'])).toEqual({ recordTimings: true })
    expect(parseSimArgs(['--record-timings=false', '--seed', '3'])).toEqual({ recordTimings: false, seed: 3 })
  })

  it('reads fixed mode when both --ttft-ms and --itl-ms are given', () => {
    expect(parseSimArgs(['--ttft-ms', '100', '--itl-ms=20'])).toEqual({ ttftMs: 100, itlMs: 20 })
  })

  it('names an unknown flag once, with the closest one, and not its value', () => {
    expect(issuesOf(() => parseSimArgs(['--prot', '8400']))).toEqual([
      { path: '--prot', message: 'is not a servebench sim flag; did you mean --port? (see --help)' },
    ])
    expect(issuesOf(() => parseSimArgs(['--bogus', '1']))).toEqual([
      { path: '--bogus', message: 'is not a servebench sim flag (see --help)' },
    ])
  })

  it('reports every bad value at once, each with what is valid', () => {
    const issues = issuesOf(() =>
      parseSimArgs([
        '--port',
        '70000',
        '--max-num-seqs=1.5',
        '--decode-base-ms',
        'fast',
        '--tokenizer',
        'bert',
        '--ttft-ms',
        '5',
      ]),
    )
    expect(issues).toEqual([
      { path: '--port', message: "must be an integer between 0 and 65535 (got '70000')" },
      { path: '--max-num-seqs', message: "must be an integer >= 1 (got '1.5')" },
      { path: '--decode-base-ms', message: "must be a number >= 0 (got 'fast')" },
      {
        path: '--tokenizer',
        message: "must be one of cl100k_base, o200k_base, p50k_base, p50k_edit, r50k_base, gpt2 (got 'bert')",
      },
      { path: '--itl-ms', message: 'must be set too: fixed timing mode needs both --ttft-ms and --itl-ms' },
    ])
  })

  it('names a value flag given no value', () => {
    expect(issuesOf(() => parseSimArgs(['--model']))).toEqual([{ path: '--model', message: 'needs a value' }])
    expect(issuesOf(() => parseSimArgs(['--port', '--seed', '1']))).toEqual([
      { path: '--port', message: 'needs a value (a number)' },
    ])
  })

  it('rejects a stray positional argument', () => {
    expect(issuesOf(() => parseSimArgs(['serve']))[0]!.message).toMatch(
      /^is not a flag; values follow the flag they belong to$/,
    )
  })

  it('formats one issue as a single-line message', () => {
    expect(() => parseSimArgs(['--seed=-1'])).toThrow("--seed must be an integer >= 0 (got '-1')")
  })
})

describe('resolveSimOptions', () => {
  it('applies the documented defaults', () => {
    const resolved = resolveSimOptions({}, fakeTokenizer)
    const { tokenizer: tokenizerName, ...rest } = DEFAULT_SIM_OPTIONS
    expect(resolved).toMatchObject({ ...rest, tokenizerName, fixed: undefined, apiKey: undefined })
    expect(DEFAULT_SIM_OPTIONS).toMatchObject({
      host: '127.0.0.1',
      model: 'servebench/sim-model',
      decodeBaseMs: 10,
      decodeMsPerSeq: 0.05,
      prefillMsPerToken: 0.02,
      maxNumSeqs: 256,
      maxNumBatchedTokens: 8192,
    })
  })

  it('switches to fixed timing when ttftMs and itlMs are set', () => {
    expect(resolveSimOptions({ ttftMs: 50, itlMs: 5 }, fakeTokenizer).fixed).toEqual({ ttftMs: 50, itlMs: 5 })
  })

  it('reports bad fields by option name', () => {
    expect(
      issuesOf(() => resolveSimOptions({ itlMs: 5, stopProbability: 2, maxNumSeqs: 0 }, fakeTokenizer)),
    ).toEqual([
      { path: 'maxNumSeqs', message: 'must be an integer >= 1 (got 0)' },
      { path: 'stopProbability', message: 'must be a number between 0 and 1 (got 2)' },
      { path: 'ttftMs', message: 'must be set too: fixed timing mode needs both ttftMs and itlMs' },
    ])
  })

  it('accepts a tokenizer object in place of an encoding name', () => {
    const tokenizer = { encode: (t: string) => [...t].map((c) => c.charCodeAt(0)), decode: () => '' }
    expect(resolveSimOptions({ tokenizer }, fakeTokenizer).tokenizer).toBe(tokenizer)
  })

  it('runs one engine by default and checks dataParallelSize, which needs a named tokenizer', () => {
    expect(resolveSimOptions({}, fakeTokenizer).dataParallelSize).toBe(1)
    expect(resolveSimOptions({ dataParallelSize: 4 }, fakeTokenizer).dataParallelSize).toBe(4)
    const tokenizer = { encode: () => [], decode: () => '' }
    expect(issuesOf(() => resolveSimOptions({ dataParallelSize: 0 }, fakeTokenizer))).toEqual([
      { path: 'dataParallelSize', message: 'must be an integer between 1 and 64 (got 0)' },
    ])
    expect(issuesOf(() => resolveSimOptions({ dataParallelSize: 2, tokenizer }, fakeTokenizer))).toEqual([
      {
        path: 'tokenizer',
        message: 'must be an encoding name with dataParallelSize above 1: each engine process loads its own',
      },
    ])
    expect(issuesOf(() => parseSimArgs(['--data-parallel-size', '1.5']))).toEqual([
      { path: '--data-parallel-size', message: "must be an integer between 1 and 64 (got '1.5')" },
    ])
    expect(parseSimArgs(['--data-parallel-size', '2'])).toEqual({ dataParallelSize: 2 })
  })
})

describe('simUsage', () => {
  it('lists every flag', () => {
    const usage = simUsage()
    for (const flag of SIM_FLAGS) expect(usage).toContain(flag.name)
  })
})
