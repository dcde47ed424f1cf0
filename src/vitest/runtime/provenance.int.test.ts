import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHttpServer, type TestServer } from '../../../test/server-helpers.ts'
import { type SimServer, startSimulator } from '../../sim/server.ts'
import { clientProvenance, collectProvenance, describeChanges, fetchServerProvenance } from './provenance.ts'

let sim: SimServer
let silent: TestServer
beforeAll(async () => {
  sim = await startSimulator({ model: 'org/tiny' })
  // A server that answers 404 to everything: provenance leaves the fields out.
  silent = await startHttpServer((_req, res) => {
    res.statusCode = 404
    res.end('no')
  })
})
afterAll(async () => {
  await sim.close()
  await silent.close()
})

describe('provenance', () => {
  it('reads the host, /v1/models and /version of a real server', async () => {
    const server = await fetchServerProvenance(sim.url)
    expect(server).toEqual({
      host: new URL(sim.url).host,
      modelId: 'org/tiny',
      modelRoot: 'org/tiny',
      version: '0.0.0+servebench.sim',
    })
  })

  it('leaves out what a server does not report, and never throws', async () => {
    expect(await fetchServerProvenance(silent.url)).toEqual({ host: new URL(silent.url).host })
    expect(await fetchServerProvenance('http://127.0.0.1:1')).toEqual({ host: '127.0.0.1:1' })
  })

  it('describes this machine and servebench', async () => {
    const p = await collectProvenance({ baseUrl: sim.url, tokenizer: 'gpt2' })
    expect(p.client).toEqual({
      cores: expect.any(Number),
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
    })
    expect(p.servebench).toMatch(/^\d+\.\d+\.\d+/)
    expect(p.tokenizer).toBe('gpt2')
    expect(clientProvenance().servebench).toBe(p.servebench)
  })
})

describe('describeChanges', () => {
  it('gives one line per changed field by dotted path', () => {
    expect(
      describeChanges(
        { load: { kind: 'closed', maxConcurrency: 8 }, dataset: { inputLen: 128 }, tokenizer: null },
        {
          load: { kind: 'closed', maxConcurrency: 16 },
          dataset: { inputLen: 128, outputLen: 64 },
          tokenizer: 'gpt2',
        },
      ),
    ).toEqual(['dataset.outputLen (none) → 64', 'load.maxConcurrency 8 → 16', 'tokenizer (none) → gpt2'])
    expect(describeChanges({ a: [1, 2] }, { a: [1, 2] })).toEqual([])
  })
})
