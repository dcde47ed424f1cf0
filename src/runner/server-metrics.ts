import { request } from 'undici'
import type { ResolvedEndpoint } from '../config/bench-config.ts'
import { parsePrometheusText } from '../metrics/prometheus.ts'
import { readSpecDecodeCounters, type SpecDecodeCounters } from '../metrics/spec-decode.ts'
import { endpointHeaders } from './model-info.ts'

// A /metrics page answers in milliseconds; waiting longer only delays the run (and a stop signal).
const SCRAPE_TIMEOUT_MS = 5_000
const MAX_METRICS_BYTES = 16 * 1024 * 1024

/**
 * `GET {base}/metrics` (with the run's headers) and the speculative-decoding counters in it.
 * Undefined when the server has no `/metrics`, it cannot be parsed, or it has no such counters:
 * the figures are optional, so a failed scrape never fails the run.
 * Python: fetch_spec_decode_metrics (vllm/benchmarks/serve.py).
 */
export async function scrapeSpecDecode(
  endpoint: ResolvedEndpoint,
  warn: (line: string) => void = () => {},
): Promise<SpecDecodeCounters | undefined> {
  const text = await scrapeMetricsText(endpoint)
  if (text === undefined) return undefined
  try {
    return readSpecDecodeCounters(parsePrometheusText(text).samples)
  } catch (error) {
    warn(`servebench: ignoring ${endpoint.baseUrl}/metrics: ${(error as Error).message}`)
    return undefined
  }
}

/** The `/metrics` body, or undefined when the server does not answer 200. */
export async function scrapeMetricsText(endpoint: ResolvedEndpoint): Promise<string | undefined> {
  try {
    const response = await request(`${endpoint.baseUrl}/metrics`, {
      headers: endpointHeaders(endpoint),
      headersTimeout: SCRAPE_TIMEOUT_MS,
      bodyTimeout: SCRAPE_TIMEOUT_MS,
    })
    if (response.statusCode !== 200) {
      await response.body.dump()
      return undefined
    }
    // Prometheus' text format (or OpenMetrics); anything else (an SSE stream, an HTML or JSON page)
    // is not read on, as its body may never end.
    const type = String(response.headers['content-type'] ?? 'text/plain')
    if (!type.includes('text/plain') && !type.includes('openmetrics')) {
      response.body.on('error', () => {})
      response.body.destroy()
      return undefined
    }
    // A /metrics page is tens of KiB; a server that streams without end is dropped at the cap.
    const chunks: Buffer[] = []
    let bytes = 0
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      chunks.push(chunk)
      bytes += chunk.length
      // Leaving the loop destroys the body through its iterator, with no stray 'error' event.
      if (bytes > MAX_METRICS_BYTES) return undefined
    }
    return Buffer.concat(chunks).toString('utf8')
  } catch {
    return undefined
  }
}
