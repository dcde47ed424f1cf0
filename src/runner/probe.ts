import { setTimeout as sleep } from 'node:timers/promises'
import type { RequestOutput } from '../config/records.ts'
import { percentile } from '../metrics/percentile.ts'
import type { ProbeSummary } from '../report/result/extra-keys.ts'

/** A running probe loop. */
export interface Probe {
  /** Stops the loop (a probe still in flight is cancelled and not counted) and summarises it. */
  stop(): Promise<ProbeSummary>
}

/**
 * `--probe-request-rate`: one small request at a time beside the run, bypassing the concurrency
 * limit, sleeping `1 / rate` after each answer, until the run ends. Its latencies show what a
 * newcomer would see under the load. Python: the probe loop of benchmark (vllm/benchmarks/serve.py).
 */
export function startProbe(send: (signal: AbortSignal) => Promise<RequestOutput>, ratePerS: number): Probe {
  const controller = new AbortController()
  const latenciesMs: number[] = []
  let failed = 0
  const loop = (async () => {
    while (!controller.signal.aborted) {
      const output = await send(controller.signal)
      if (controller.signal.aborted) break
      if (output.success) latenciesMs.push(output.latencyS * 1000)
      else failed++
      try {
        await sleep(1000 / ratePerS, undefined, { signal: controller.signal })
      } catch {
        break
      }
    }
  })()
  return {
    async stop() {
      controller.abort()
      await loop
      return {
        completed: latenciesMs.length,
        failed,
        medianE2elMs: percentile(latenciesMs, 50),
        p99E2elMs: percentile(latenciesMs, 99),
        maxE2elMs: latenciesMs.length ? Math.max(...latenciesMs) : 0,
      }
    },
  }
}
