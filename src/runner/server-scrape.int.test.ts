import { afterEach, describe, expect, it } from 'vitest'
import { startHttpServer, type TestServer } from '../../test/server-helpers.ts'
import type { ResolvedEndpoint } from '../config/bench-config.ts'
import { scrapeMetricsText } from './server-metrics.ts'
import { startServerScrape } from './server-scrape.ts'

const endpointOf = (baseUrl: string): ResolvedEndpoint => ({
  backend: 'openai',
  baseUrl,
  endpointPath: '/v1/completions',
  headers: { 'x-tenant': 'a' },
  insecure: false,
})

let server: TestServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('the /metrics scrape loop', () => {
  it('gives up after one note on a server without /metrics, and leaves the key out', async () => {
    let asked = 0
    server = await startHttpServer((_req, res) => {
      asked++
      res.writeHead(404).end('no metrics here')
    })
    const notes: string[] = []
    const loop = startServerScrape(endpointOf(server.url), 0.01, (line) => notes.push(line))
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await loop.stop()).toBeUndefined()
    expect(asked).toBe(1)
    expect(notes).toEqual([
      `servebench: no server metrics (${server.url}/metrics did not answer 200); the run goes on without them`,
    ])
  })

  it('scrapes until stopped, once more at the end, with the run headers, and never two at once', async () => {
    let value = 0
    let open = 0
    let most = 0
    const headers: Array<string | undefined> = []
    server = await startHttpServer((req, res) => {
      headers.push(req.headers['x-tenant'] as string | undefined)
      open++
      most = Math.max(most, open)
      // A slow page: later scrapes wait for it instead of piling up.
      setTimeout(() => {
        open--
        value++
        res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(`# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting ${value}\n`)
      }, 15)
    })
    const loop = startServerScrape(endpointOf(server.url), 0.005, () => {})
    while (value < 3) await new Promise((resolve) => setTimeout(resolve, 5))
    const series = await loop.stop()
    expect(most).toBe(1)
    expect(headers.every((h) => h === 'a')).toBe(true)
    const waiting = series!.series['vllm:num_requests_waiting']!
    expect(waiting.length).toBeGreaterThanOrEqual(4)
    expect(waiting).toEqual(waiting.map((_, i) => i + 1))
    expect(series!.t_s).toEqual([...series!.t_s].sort((a, b) => a - b))
    // Stopped means stopped: no scrape after `stop` returned.
    const count = headers.length
    await new Promise((resolve) => setTimeout(resolve, 40))
    expect(headers.length).toBe(count)
  })
})

describe('scrapeMetricsText', () => {
  const page = '# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting 2\n'
  it.each([
    ['text/plain; version=0.0.4; charset=utf-8', page],
    ['application/openmetrics-text; version=1.0.0', page],
    // Not a metrics page: not read (an event stream's body may never end).
    ['text/event-stream', undefined],
    ['text/html', undefined],
  ])('a page served as %s', async (type, expected) => {
    server = await startHttpServer((_req, res) => res.writeHead(200, { 'content-type': type }).end(page))
    expect(await scrapeMetricsText(endpointOf(server.url))).toBe(expected)
  })
})
