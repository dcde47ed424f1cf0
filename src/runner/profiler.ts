import { request } from 'undici'
import type { ResolvedEndpoint } from '../config/bench-config.ts'
import { endpointHeaders } from './model-info.ts'

/**
 * `--profile`: POST `{base}/start_profile` or `{base}/stop_profile` with the run's headers. A server
 * without a profiler answers an error; that is reported, not thrown, as Python does.
 * Python: main_async profile calls (vllm/benchmarks/serve.py).
 */
export async function callProfiler(
  endpoint: ResolvedEndpoint,
  action: 'start' | 'stop',
  log: (line: string) => void,
): Promise<boolean> {
  const url = `${endpoint.baseUrl}/${action}_profile`
  try {
    const response = await request(url, {
      method: 'POST',
      headers: endpointHeaders(endpoint),
    })
    const text = await response.body.text()
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
