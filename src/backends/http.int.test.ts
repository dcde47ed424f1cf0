import { afterEach, describe, expect, it } from 'vitest'
import { backendRequest } from '../../test/backends/backend-request.ts'
import {
  HTTP_TRANSPORT_CASES,
  LOCALHOST_TLS,
  playSse,
  type ScriptServer,
  sse,
  startScriptServer,
} from '../../test/backends/script-server.ts'
import { BACKEND_NAMES, type HttpTransport } from '../config/bench-config.ts'
import { HttpClient } from './http.ts'
import { BACKENDS, getBackend } from './index.ts'
import type { BackendRequest } from './types.ts'

let server: ScriptServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

function makeRequest(url: string, index: number): BackendRequest {
  return backendRequest(url, { requestId: `r-${index}`, prompt: 'p', promptLen: 1 })
}

// Each response is held until every request has arrived, or until no new one has arrived for
// 200 ms (the pool holds the rest back), so the peak does not depend on how busy the machine is.
async function runConcurrent(
  connections: number,
  requests: number,
  transport: HttpTransport,
): Promise<number> {
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
  const client = new HttpClient({ connections, transport })
  const backend = getBackend('vllm')
  const url = `${server.baseUrl}${backend.defaultEndpointPath}`
  const outputs = await Promise.all(
    Array.from({ length: requests }, (_, i) => backend.send(makeRequest(url, i), client)),
  )
  await client.close()
  expect(outputs.every((output) => output.success)).toBe(true)
  return server.peakConcurrent()
}

describe.for(HTTP_TRANSPORT_CASES)('HttpClient over %s', (transport) => {
  it('opens at most `connections` sockets, so requests beyond it wait', async () => {
    expect(await runConcurrent(2, 6, transport)).toBe(2)
  })

  it('has no limit with Infinity', async () => {
    expect(await runConcurrent(Number.POSITIVE_INFINITY, 6, transport)).toBe(6)
  })

  it('streams over TLS with the host name as SNI when insecure, and refuses a self-signed certificate otherwise', async () => {
    server = await startScriptServer(
      (_request, response) => playSse(response, [{ kind: 'write', data: sse({ choices: [{ text: 'x' }] }) }]),
      { tls: LOCALHOST_TLS },
    )
    const backend = getBackend('vllm')
    const url = `${server.baseUrl}${backend.defaultEndpointPath}`
    const insecure = new HttpClient({ connections: 1, insecure: true, transport })
    const strict = new HttpClient({ connections: 1, transport })
    try {
      const outputs = [
        await backend.send(makeRequest(url, 0), insecure),
        await backend.send(makeRequest(url, 1), insecure),
      ]
      expect(outputs.map((output) => [output.success, output.generatedText])).toEqual([
        [true, 'x'],
        [true, 'x'],
      ])
      expect(server.requests.map((request) => request.servername)).toEqual(['localhost', 'localhost'])
      const refused = await backend.send(makeRequest(url, 2), strict)
      expect(refused.success).toBe(false)
      expect(refused.error).toBe('Request failed: self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)')
    } finally {
      await Promise.all([insecure.close(), strict.close()])
    }
  })

  it('can be closed twice', async () => {
    const client = new HttpClient({ connections: 1, insecure: true })
    await client.close()
    await expect(client.close()).resolves.toBeUndefined()
  })
})

describe('HttpClient transport', () => {
  it('sends streams through undici when a proxy is set, unless told lean, which is a config error', () => {
    const env = { HTTPS_PROXY: 'http://127.0.0.1:9' }
    expect(new HttpClient({ connections: 1, env }).transport).toBe('undici')
    expect(new HttpClient({ connections: 1, env: {} }).transport).toBe('lean')
    expect(new HttpClient({ connections: 1, env: {}, transport: 'undici' }).transport).toBe('undici')
    expect(() => new HttpClient({ connections: 1, env, transport: 'lean' })).toThrow(
      "--http-transport is 'lean', which cannot send through a proxy, and HTTP_PROXY or HTTPS_PROXY is set; use 'auto' or 'undici'",
    )
  })
})

describe('BACKENDS', () => {
  it('maps vllm and openai to completions and openai-chat to chat', () => {
    expect(BACKENDS.vllm.defaultEndpointPath).toBe('/v1/completions')
    expect(BACKENDS.openai.defaultEndpointPath).toBe('/v1/completions')
    expect(BACKENDS['openai-chat'].defaultEndpointPath).toBe('/v1/chat/completions')
    // Every name --backend accepts has a backend, in the same order, and nothing else does.
    expect(Object.keys(BACKENDS).map((name) => getBackend(name as keyof typeof BACKENDS).name)).toEqual([
      ...BACKEND_NAMES,
    ])
  })
})
