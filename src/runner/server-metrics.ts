import { request } from 'undici'
import type { ResolvedEndpoint } from '../config/bench-config.ts'
import { parsePrometheusText } from '../metrics/prometheus.ts'
import { readSpecDecodeCounters, type SpecDecodeCounters } from '../metrics/spec-decode.ts'
import { AUX_BODY_LIMITS, type AuxTimeouts, auxRequestOptions, readTextCapped } from '../response-body.ts'
import { endpointHeaders } from './model-info.ts'

// A /metrics page answers in milliseconds; waiting longer only delays the run (and a stop signal).
const SCRAPE_TIMEOUT_MS = 5_000

/**
 * `GET {base}/metrics` (with the run's headers) and the speculative-decoding counters in it.
 * Undefined when the server has no `/metrics`, it cannot be parsed, or it has no such counters:
 * the figures are optional, so a failed scrape never fails the run.
 * Python: fetch_spec_decode_metrics (vllm/benchmarks/serve.py).
 */
export async function scrapeSpecDecode(
  endpoint: ResolvedEndpoint,
  warn: (line: string) => void = () => {},
  timeouts: AuxTimeouts = {},
): Promise<SpecDecodeCounters | undefined> {
  const text = await scrapeMetricsText(endpoint, timeouts)
  if (text === undefined) return undefined
  try {
    return readSpecDecodeCounters(parsePrometheusText(text).samples)
  } catch (error) {
    warn(`servebench: ignoring ${endpoint.baseUrl}/metrics: ${(error as Error).message}`)
    return undefined
  }
}

/**
 * The `/metrics` body, or undefined when the server does not answer 200 in time (5 s, or the run's
 * shorter `--request-timeout` / `--read-timeout`) with at most 16 MiB of Prometheus text.
 */
export async function scrapeMetricsText(
  endpoint: ResolvedEndpoint,
  timeouts: AuxTimeouts = {},
): Promise<string | undefined> {
  const shorter = (s: number | undefined): number =>
    Math.min(SCRAPE_TIMEOUT_MS / 1000, s ?? Number.POSITIVE_INFINITY)
  try {
    const response = await request(`${endpoint.baseUrl}/metrics`, {
      headers: endpointHeaders(endpoint),
      ...auxRequestOptions(
        { timeoutS: shorter(timeouts.timeoutS), readTimeoutS: shorter(timeouts.readTimeoutS) },
        SCRAPE_TIMEOUT_MS,
      ),
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
    return await readTextCapped(response.body, AUX_BODY_LIMITS.metricsBytes, 'GET /metrics', {
      contentLength: response.headers['content-length'],
    })
  } catch {
    return undefined
  }
}
