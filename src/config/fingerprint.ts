import type { BenchConfig } from './bench-config.ts'

/**
 * A stable id of what a benchmark measures: everything that changes the workload, nothing volatile
 * (the simulator's port, request-id prefixes, API keys, output paths).
 */
export function configFingerprint(config: BenchConfig): string {
  return fnv1a(canonicalJson(configWorkload(config)))
}

/** What the fingerprint is made of, as plain JSON: a stale baseline names the fields that changed. */
export function configWorkload(config: BenchConfig): Record<string, unknown> {
  const { endpoint, tokenizer, dataset, numPrompts, seed, load, request, numWarmups, goodput } = config
  return {
    endpoint: { backend: endpoint.backend, path: endpoint.endpointPath, model: endpoint.model ?? null },
    tokenizer: tokenizer.id ?? null,
    dataset,
    numPrompts,
    seed,
    load: { ...load, requestRate: String(load.requestRate), burstiness: String(load.burstiness) },
    request: { ignoreEos: request.ignoreEos, sampling: request.sampling, extraBody: request.extraBody },
    numWarmups,
    goodput: goodput ?? null,
  }
}

/** The stable id of any plain JSON value (the same hash as {@link configFingerprint}). */
export function fingerprintOf(value: unknown): string {
  return fnv1a(canonicalJson(value))
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`
  }
  return JSON.stringify(v)
}

// 64-bit FNV-1a over UTF-16 units: short, stable, no crypto dependency in the worker.
function fnv1a(s: string): string {
  let h = 0xcbf29ce484222325n
  for (let i = 0; i < s.length; i++) {
    h ^= BigInt(s.charCodeAt(i))
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn
  }
  return h.toString(16).padStart(16, '0')
}
