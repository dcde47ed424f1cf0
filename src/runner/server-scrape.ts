import type { ResolvedEndpoint } from '../config/bench-config.ts'
import { parsePrometheusText } from '../metrics/prometheus.ts'
import {
  type ServerMetricsSeries,
  type ServerScrape,
  scrapeValues,
  serverMetricsJson,
} from '../report/result/server-metrics-key.ts'
import { scrapeMetricsText } from './server-metrics.ts'

/** A scrape loop started before a timed run. */
export interface ServerScrapeLoop {
  /** Stops the loop after one last scrape; the series, or undefined when no scrape answered. */
  stop(): Promise<ServerMetricsSeries | undefined>
}

/**
 * `--server-metrics-interval`: scrapes `GET {base}/metrics` now and every `intervalS` seconds
 * until `stop`, keeping the gauges and counters of each answer (`server_metrics`, docs/reports.md).
 * A server without `/metrics` (or with a page that cannot be parsed) ends the loop after one note:
 * the series are optional, so a failed scrape never fails the run. A scrape is stamped when its
 * answer arrived, on the clock of the requests' `start_times`.
 */
export function startServerScrape(
  endpoint: ResolvedEndpoint,
  intervalS: number,
  log: (line: string) => void = () => {},
): ServerScrapeLoop {
  const scrapes: ServerScrape[] = []
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let gaveUp = false
  const once = async (): Promise<void> => {
    const text = await scrapeMetricsText(endpoint)
    if (text === undefined) {
      // Only a server that never answered is given up on: one lost scrape mid-run is a gap.
      if (scrapes.length === 0) giveUp(`${endpoint.baseUrl}/metrics did not answer 200`)
      return
    }
    try {
      scrapes.push({ tS: performance.now() / 1000, values: scrapeValues(parsePrometheusText(text)) })
    } catch (error) {
      giveUp(`${endpoint.baseUrl}/metrics: ${(error as Error).message}`)
    }
  }
  const giveUp = (why: string): void => {
    if (gaveUp) return
    gaveUp = true
    log(`servebench: no server metrics (${why}); the run goes on without them`)
  }
  // Each scrape is scheduled when the previous one ended, so a slow server never gets two at once.
  let inFlight: Promise<void> = once()
  const schedule = (): void => {
    if (stopped || gaveUp) return
    timer = setTimeout(() => {
      inFlight = once().then(schedule)
    }, intervalS * 1000)
    timer.unref()
  }
  inFlight = inFlight.then(schedule)
  return {
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      await inFlight
      if (!gaveUp) await once()
      return serverMetricsJson(scrapes, { source: `${endpoint.baseUrl}/metrics`, intervalS })
    },
  }
}
