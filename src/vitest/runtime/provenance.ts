/**
 * Where a baseline came from: the server, the tokenizer, the client machine and the servebench
 * version. Stored with each baseline; a difference from the current run is reported as a note, one
 * line per changed field, so a reader can tell a regression from a changed setup. Also the
 * field-by-field description of what changed in a workload, for stale baselines.
 */
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { request } from 'undici'
import { AUX_BODY_LIMITS, readTextCapped } from '../../response-body.ts'

/** @experimental The provenance stored with a baseline. */
export interface BaselineProvenance {
  server?: {
    /** Host (and port) of the base URL. */
    host: string
    /** `data[0].id` of `/v1/models`. */
    modelId?: string
    /** `data[0].root` of `/v1/models`. */
    modelRoot?: string
    /** `version` of `/version`, where the server reports one (vLLM does). */
    version?: string
  }
  /** Tokenizer id the run counted tokens with. */
  tokenizer?: string | null
  client: {
    cores: number
    node: string
    platform: string
    arch: string
  }
  /** servebench's version, from its package.json. */
  servebench: string
}

const PROBE_TIMEOUT_MS = 5_000

/** The client half of the provenance: this machine and this servebench. */
export function clientProvenance(): Pick<BaselineProvenance, 'client' | 'servebench'> {
  return {
    client: {
      cores: availableParallelism(),
      node: process.versions.node,
      platform: process.platform,
      arch: process.arch,
    },
    servebench: servebenchVersion(),
  }
}

/**
 * The server half: the base URL's host, `/v1/models` and `/version`. A probe that fails leaves its
 * fields out; provenance never fails a benchmark.
 */
export async function fetchServerProvenance(
  baseUrl: string,
  headers: Record<string, string> = {},
): Promise<NonNullable<BaselineProvenance['server']>> {
  const server: NonNullable<BaselineProvenance['server']> = { host: hostOf(baseUrl) }
  const models = (await getJson(`${baseUrl}/v1/models`, headers)) as {
    data?: Array<{ id?: unknown; root?: unknown }>
  } | null
  const first = models?.data?.[0]
  if (typeof first?.id === 'string') server.modelId = first.id
  if (typeof first?.root === 'string') server.modelRoot = first.root
  const version = (await getJson(`${baseUrl}/version`, headers)) as { version?: unknown } | null
  if (typeof version?.version === 'string') server.version = version.version
  return server
}

/** The whole provenance of a run against `baseUrl`. */
export async function collectProvenance(options: {
  baseUrl: string
  headers?: Record<string, string>
  tokenizer?: string | null
}): Promise<BaselineProvenance> {
  return {
    server: await fetchServerProvenance(options.baseUrl, options.headers),
    tokenizer: options.tokenizer ?? null,
    ...clientProvenance(),
  }
}

/**
 * One line per field that differs between two plain-JSON values, by dotted path:
 * `server.version 0.6.1 → 0.7.0`, `load.maxConcurrency 8 → 16`, `tokenizer (none) → gpt2`.
 */
export function describeChanges(before: unknown, after: unknown, path = ''): string[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
    return keys.flatMap((k) => describeChanges(before[k], after[k], path ? `${path}.${k}` : k))
  }
  if (JSON.stringify(before) === JSON.stringify(after)) return []
  return [`${path || '(value)'} ${show(before)} → ${show(after)}`]
}

function show(value: unknown): string {
  if (value === undefined || value === null) return '(none)'
  if (typeof value === 'string') return value
  return JSON.stringify(value)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host
  } catch {
    return baseUrl
  }
}

async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  try {
    const response = await request(url, {
      headers,
      headersTimeout: PROBE_TIMEOUT_MS,
      bodyTimeout: PROBE_TIMEOUT_MS,
    })
    if (response.statusCode !== 200) {
      await response.body.dump()
      return null
    }
    return JSON.parse(
      await readTextCapped(response.body, AUX_BODY_LIMITS.modelsBytes, `GET ${url}`, {
        contentLength: response.headers['content-length'],
      }),
    )
  } catch {
    return null
  }
}

let version: string | undefined
function servebenchVersion(): string {
  // Three levels up from src/vitest/runtime and from dist/vitest/runtime alike.
  version ??= (
    JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version
  return version
}
