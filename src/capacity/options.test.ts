import { describe, expect, it } from 'vitest'
import { ConfigError } from '../errors.ts'
import { resolveDsl } from '../options/from-dsl.ts'
import { datasets, endpoint, load } from '../vitest/runtime/builders.ts'
import { refusedCapacityOptions, refusedServeFlags } from './options.ts'

describe('what a capacity search refuses, at both doors', () => {
  it('refuses the serve flags the search sets itself, naming them as flags', () => {
    const flags = new Set(['--num-prompts', '--request-rate', '--max-concurrency'])
    expect(refusedServeFlags(flags, undefined, 'servebench capacity flag')).toEqual([
      {
        path: '--num-prompts',
        message:
          'is not a servebench capacity flag: the search sizes each probe: use --probe-requests and --budget-requests',
      },
      {
        path: '--request-rate',
        message:
          'is what the search varies (--vary request-rate); set its range with --min-load and --max-load',
      },
    ])
    // A concurrency cap beside a varied rate is a load shape, not the varied load.
    expect(refusedServeFlags(new Set(['--max-concurrency']), 'request-rate', 'x')).toEqual([])
    expect(refusedServeFlags(new Set(['--max-concurrency']), 'max-concurrency', 'x')).toHaveLength(1)
  })

  it('refuses the same options in a suite, in the DSL words', () => {
    let error: unknown
    try {
      resolveDsl(
        {
          endpoint: endpoint({ backend: 'openai', model: 'm', baseUrl: 'http://127.0.0.1:1' }),
          dataset: datasets.random({ inputLen: 16, outputLen: 8, numPrompts: 50 }),
          load: load.poisson({ rate: 5 }),
        },
        { name: 'cap', simulator: false, env: {} },
        (flags) => refusedCapacityOptions(flags, undefined),
      )
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).issues).toEqual([
      {
        path: "serveBench('cap').dataset.numPrompts",
        message:
          'is not a serveBench.capacity option: the search sizes each probe: use search.probeRequests and search.budgetRequests',
      },
      {
        path: "serveBench('cap').load.rate",
        message:
          'is what the search varies (search.vary request-rate); set its range with search.minLoad and search.maxLoad',
      },
    ])
  })
})
