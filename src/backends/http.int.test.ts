import { afterEach, describe, expect, it } from 'vitest'
import { playSse, type ScriptServer, sse, startScriptServer } from '../../test/backends/script-server.ts'
import { HttpClient } from './http.ts'
import { BACKENDS, getBackend } from './index.ts'
import type { BackendRequest } from './types.ts'

let server: ScriptServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

function makeRequest(url: string, index: number): BackendRequest {
  return {
    url,
    requestId: `r-${index}`,
    model: 'm',
    prompt: 'p',
    promptLen: 1,
    outputLen: 1,
    ignoreEos: false,
    extraBody: {},
    headers: {},
  }
}

// Each response is held until every request has arrived, or until no new one has arrived for
// 200 ms (the pool holds the rest back), so the peak does not depend on how busy the machine is.
async function runConcurrent(connections: number, requests: number): Promise<number> {
  let arrived = 0
  let release: () => void = () => {}
  const allArrived = new Promise<void>((resolve) => {
    release = resolve
  })
  let quiet: NodeJS.Timeout | undefined
  server = await startScriptServer(async (_request, response) => {
    arrived += 1
    clearTimeout(quiet)
    if (arrived >= requests) release()
    else quiet = setTimeout(release, 500)
    await allArrived
    await playSse(response, [{ kind: 'write', data: sse({ choices: [{ text: 'x' }] }) }])
  })
  const client = new HttpClient({ connections })
  const backend = getBackend('vllm')
  const url = `${server.baseUrl}${backend.defaultEndpointPath}`
  const outputs = await Promise.all(
    Array.from({ length: requests }, (_, i) => backend.send(makeRequest(url, i), client)),
  )
  await client.close()
  expect(outputs.every((output) => output.success)).toBe(true)
  return server.peakConcurrent()
}

describe('HttpClient', () => {
  it('opens at most `connections` sockets, so requests beyond it wait', async () => {
    expect(await runConcurrent(2, 6)).toBe(2)
  })

  it('has no limit with Infinity', async () => {
    expect(await runConcurrent(Number.POSITIVE_INFINITY, 6)).toBe(6)
  })

  it('can be closed twice', async () => {
    const client = new HttpClient({ connections: 1, insecure: true })
    await client.close()
    await expect(client.close()).resolves.toBeUndefined()
  })
})

describe('BACKENDS', () => {
  it('maps vllm and openai to completions and openai-chat to chat', () => {
    expect(BACKENDS.vllm.defaultEndpointPath).toBe('/v1/completions')
    expect(BACKENDS.openai.defaultEndpointPath).toBe('/v1/completions')
    expect(BACKENDS['openai-chat'].defaultEndpointPath).toBe('/v1/chat/completions')
    expect(Object.keys(BACKENDS).map((name) => getBackend(name as keyof typeof BACKENDS).name)).toEqual([
      'vllm',
      'openai',
      'openai-chat',
      'openai-responses',
      'openai-audio',
      'openai-embeddings',
      'openai-embeddings-chat',
      'openai-embeddings-clip',
      'openai-embeddings-vlm2vec',
      'infinity-embeddings',
      'infinity-embeddings-clip',
      'vllm-pooling',
      'vllm-rerank',
    ])
  })
})
