import { request } from 'undici'
import type { ResolvedEndpoint } from '../config/bench-config.ts'
import { EndpointError } from '../errors.ts'
import {
  AUX_BODY_LIMITS,
  type AuxTimeouts,
  ResponseTooLargeError,
  readBodyHead,
  readTextCapped,
} from '../response-body.ts'

/** `data[0]` of `/v1/models`: `id` is what requests send, `root` is the model id (Python: vllm/benchmarks/serve.py). */
export interface ServedModel {
  name: string
  id: string
}

/** `authorization` when the endpoint has an API key, then its `--header` pairs: what calls besides benchmark requests send. */
export function endpointHeaders(endpoint: ResolvedEndpoint): Record<string, string> {
  return {
    ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
    ...endpoint.headers,
  }
}

/**
 * The served model (`--model` as both name and id, else the server's first model) and the name
 * requests send: `--served-model-name`, else the served name.
 */
export async function resolveServedModel(
  endpoint: ResolvedEndpoint,
  timeoutMs?: number,
): Promise<{ served: ServedModel; requestModel: string }> {
  const served = endpoint.model
    ? { name: endpoint.model, id: endpoint.model }
    : await fetchFirstModel(endpoint, timeoutMs)
  return { served, requestModel: endpoint.servedModelName ?? served.name }
}

/** The `/v1/models` lookup's timeout: the shorter of `--request-timeout` and `--read-timeout`, else 30 s. */
export function lookupTimeoutMs(request: AuxTimeouts): number | undefined {
  const limitsS = [request.timeoutS, request.readTimeoutS].filter((s) => s !== undefined)
  return limitsS.length === 0 ? undefined : Math.max(1, Math.min(...limitsS) * 1000)
}

/** Ask the server which model it serves. Python: get_first_model_from_server (serve.py). */
export async function fetchFirstModel(endpoint: ResolvedEndpoint, timeoutMs = 30_000): Promise<ServedModel> {
  const url = `${endpoint.baseUrl}/v1/models`
  let body: unknown
  try {
    const response = await request(url, {
      headers: endpointHeaders(endpoint),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // undici's headersTimeout does not cover the first request on a fresh connection.
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (response.statusCode !== 200) {
      const text = await readBodyHead(response.body, AUX_BODY_LIMITS.messageBytes)
      throw new Error(`HTTP ${response.statusCode}: ${text.slice(0, 200)}`)
    }
    const text = await readTextCapped(response.body, AUX_BODY_LIMITS.modelsBytes, `GET ${url}`, {
      contentLength: response.headers['content-length'],
    })
    body = JSON.parse(text)
  } catch (error) {
    throw new EndpointError(
      'SERVEBENCH_ENDPOINT_UNREACHABLE',
      // An answer over its cap came from a running server: asking whether it runs would mislead.
      `Cannot read the served model from ${url}: ${describe(error)}.${error instanceof ResponseTooLargeError ? '' : ' Is the server running?'} Pass --model to skip this lookup.`,
      { cause: error },
    )
  }
  const first = (body as { data?: Array<{ id?: unknown; root?: unknown }> } | null)?.data?.[0]
  if (!first || typeof first.id !== 'string') {
    throw new EndpointError('SERVEBENCH_ENDPOINT_UNREACHABLE', `${url} lists no model; pass --model`)
  }
  return { name: first.id, id: typeof first.root === 'string' ? first.root : first.id }
}

function describe(error: unknown): string {
  const parts: string[] = []
  for (let e: unknown = error; e instanceof Error && parts.length < 4; e = e.cause) {
    const code = (e as { code?: unknown }).code
    parts.push(typeof code === 'string' && !e.message.includes(code) ? `${e.message} (${code})` : e.message)
  }
  return parts.join(': ') || String(error)
}
