import { request } from 'undici'
import type { ResolvedEndpoint } from '../config/bench-config.ts'
import { AUX_BODY_LIMITS, type AuxTimeouts, auxRequestOptions, readBodyHead } from '../response-body.ts'
import { endpointHeaders } from './model-info.ts'

const PROFILER_TIMEOUT_MS = 300_000

/**
 * `--profile`: POST `{base}/start_profile` or `{base}/stop_profile` with the run's headers. A server
 * without a profiler answers an error; that is reported, not thrown, as Python does.
 * Python: main_async profile calls (vllm/benchmarks/serve.py).
 */
export async function callProfiler(
  endpoint: ResolvedEndpoint,
  action: 'start' | 'stop',
  log: (line: string) => void,
  timeouts: AuxTimeouts = {},
): Promise<boolean> {
  const url = `${endpoint.baseUrl}/${action}_profile`
  try {
    const response = await request(url, {
      method: 'POST',
      headers: endpointHeaders(endpoint),
      // A profiler call returns when the profiler started or stopped: the run's timeouts, else 5 min.
      ...auxRequestOptions(timeouts, PROFILER_TIMEOUT_MS),
    })
    const text = await readBodyHead(response.body, AUX_BODY_LIMITS.messageBytes)
    if (response.statusCode >= 200 && response.statusCode < 300) {
      log(action === 'start' ? 'Profiler started' : 'Profiler stopped')
      return true
    }
    log(`servebench: ${url} answered HTTP ${response.statusCode}: ${text.slice(0, 200)}`)
  } catch (error) {
    log(`servebench: ${url} failed: ${(error as Error).message}`)
  }
  return false
}
