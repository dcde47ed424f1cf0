import { request } from 'undici'
import type { ResolvedEndpoint } from '../config/bench-config.ts'
import { EndpointError } from '../errors.ts'
import { AUX_BODY_LIMITS, type AuxTimeouts, auxRequestOptions, readBodyHead } from '../response-body.ts'
import { endpointHeaders } from './model-info.ts'

const RESET_TIMEOUT_MS = 300_000

/**
 * `--reset-prefix-cache`: `POST {base}/reset_prefix_cache` with the run's headers, so a run does
 * not start on prefixes cached by the run before it. vLLM answers it only with
 * `VLLM_SERVER_DEV_MODE=1`; anything but 2xx stops the benchmark, as in Rust (benchmark.rs).
 */
export async function resetPrefixCache(
  endpoint: ResolvedEndpoint,
  log: (line: string) => void,
  timeouts: AuxTimeouts = {},
): Promise<void> {
  const url = `${endpoint.baseUrl}/reset_prefix_cache`
  let status: number
  let text: string
  try {
    const response = await request(url, {
      method: 'POST',
      headers: endpointHeaders(endpoint),
      ...auxRequestOptions(timeouts, RESET_TIMEOUT_MS),
    })
    status = response.statusCode
    text = await readBodyHead(response.body, AUX_BODY_LIMITS.messageBytes)
  } catch (error) {
    throw new EndpointError(
      'SERVEBENCH_ENDPOINT_UNREACHABLE',
      `--reset-prefix-cache: POST ${url} failed: ${(error as Error).message}`,
      { cause: error },
    )
  }
  if (status < 200 || status >= 300) {
    throw new EndpointError(
      'SERVEBENCH_ENDPOINT_NOT_READY',
      `--reset-prefix-cache: POST ${url} answered HTTP ${status}: ${text.slice(0, 200)} (vLLM serves it only with VLLM_SERVER_DEV_MODE=1)`,
    )
  }
  log('Prefix cache reset.')
}
