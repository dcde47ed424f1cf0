import { request } from 'undici'
import type { ResolvedEndpoint } from '../config/bench-config.ts'
import { endpointHeaders } from './model-info.ts'

/** Who answered a benchmark: what a baseline records so a later mismatch can be named. */
export interface ServerIdentity {
  /** `host:port` of the base URL. */
  host: string
  /** `data[0].id` of `/v1/models`; null when the server did not say. */
  modelId: string | null
  /** `data[0].root` of `/v1/models` (vLLM: the model path or hub id). */
  modelRoot: string | null
  /** `version` of `GET /version` (vLLM reports its release); null when not reported. */
  version: string | null
}

const IDENTITY_TIMEOUT_MS = 5_000

/**
 * Reads the server's identity with two small GETs. Never throws: a server that does not answer
 * them still gets benchmarked, and its identity is what it said.
 */
export async function fetchServerIdentity(endpoint: ResolvedEndpoint): Promise<ServerIdentity> {
  const headers = endpointHeaders(endpoint)
  const [models, version] = await Promise.all([
    getJson(`${endpoint.baseUrl}/v1/models`, headers),
    getJson(`${endpoint.baseUrl}/version`, headers),
  ])
  const first = (models as { data?: Array<{ id?: unknown; root?: unknown }> } | undefined)?.data?.[0]
  const v = (version as { version?: unknown } | undefined)?.version
  return {
    host: new URL(endpoint.baseUrl).host,
    modelId: typeof first?.id === 'string' ? first.id : null,
    modelRoot: typeof first?.root === 'string' ? first.root : null,
    version: typeof v === 'string' ? v : null,
  }
}

async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  try {
    const response = await request(url, {
      headers,
      headersTimeout: IDENTITY_TIMEOUT_MS,
      bodyTimeout: IDENTITY_TIMEOUT_MS,
    })
    if (response.statusCode !== 200) {
      await response.body.dump()
      return undefined
    }
    return await response.body.json()
  } catch {
    return undefined
  }
}
