/**
 * The floor under servebench's client cost: the same streamed requests sent with plain undici and
 * no parsing at all, against the same simulator. `request()` drains a Readable body; `dispatch()`
 * hands raw chunks to a handler (what src/backends/stream-request.ts does), so the gap between
 * each floor and servebench is what servebench itself adds per request.
 */
import { Agent, type Dispatcher, request } from 'undici'

/** Which undici API the floor uses. */
export type FloorKind = 'request' | 'dispatch'

/** CPU milliseconds per request (user and kernel) of `requests` streams, `concurrency` at a time. */
export interface FloorCost {
  kind: FloorKind
  cpuMsPerRequest: number
  userCpuMsPerRequest: number
}

export async function measureFloor(
  kind: FloorKind,
  baseUrl: string,
  concurrency: number,
  requests: number,
  outputTokens: number,
): Promise<FloorCost> {
  const agent = new Agent({ connections: concurrency, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 })
  const url = new URL('/v1/completions', baseUrl)
  const body = (i: number): string =>
    JSON.stringify({
      prompt: Array.from({ length: 32 }, (_, j) => 1000 + ((i * 32 + j) % 50_000)),
      max_tokens: outputTokens,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    })
  const send = kind === 'request' ? viaRequest : viaDispatch
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < requests) await send(agent, url, body(next++))
  }
  const cpuStart = process.cpuUsage()
  await Promise.all(Array.from({ length: concurrency }, worker))
  const cpu = process.cpuUsage(cpuStart)
  await agent.close()
  return {
    kind,
    cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / requests,
    userCpuMsPerRequest: cpu.user / 1000 / requests,
  }
}

async function viaRequest(agent: Agent, url: URL, body: string): Promise<void> {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body,
  })
  await new Promise<void>((resolve, reject) => {
    res.body.on('data', () => {})
    res.body.once('end', resolve)
    res.body.once('error', reject)
  })
}

function viaDispatch(agent: Agent, url: URL, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: () => {},
      onResponseData: () => {},
      onResponseEnd: () => resolve(),
      onResponseError: (_controller, error) => reject(error),
    }
    agent.dispatch(
      {
        origin: url.origin,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      },
      handler,
    )
  })
}
