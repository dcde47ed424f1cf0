/**
 * `npm run perf -- capacity`: does the capacity search find what a brute-force scan finds? On three
 * simulator settings with different bottlenecks (decode steps, prefill, the KV cache), a scan runs
 * many loads with many requests each and reads where the SLO's point estimate crosses its bound;
 * the search (`capacity/run-capacity.ts`, as `servebench capacity` runs it) is repeated. Targets:
 * agreement within 5 %, the repeats' spread at most 5 %, the search's requests at most a quarter of
 * the scan's.
 *
 * The simulator runs in its own process (`servebench sim`), so its steps do not wait on the client's
 * event loop. `CAPACITY_REPEATS` (default 5) repeats the search; `CAPACITY_SCALE` (default 1)
 * multiplies the scan's loads and requests per load (0.5 halves them on a slow machine).
 * `CAPACITY_PROFILES=decode,kv-cache` picks profiles.
 */
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import type { CapacitySlo } from '../src/capacity/capacity-result.ts'
import { judgeProbe } from '../src/capacity/judge.ts'
import { resolveCapacitySearch } from '../src/capacity/options.ts'
import { runCapacity } from '../src/capacity/run-capacity.ts'
import { parseSlos } from '../src/capacity/slo.ts'
import type { BenchConfig } from '../src/config/bench-config.ts'
import { resolveServeFlags } from '../src/options/serve-flags.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { suiteResult } from '../src/vitest/runtime/rounds.ts'
import { countFromEnv } from './env-count.ts'

interface Profile {
  name: string
  bottleneck: string
  sim: string[]
  workload: string[]
  slo: string
  /** The scan's range, around where the model puts the capacity. */
  scan: [number, number]
}

export const PROFILES: readonly Profile[] = [
  {
    // TPOT = base / (1 − perSeq · rate · out / 1000): 100 ms at 37.5 req/s.
    name: 'decode',
    bottleneck: 'decode steps: TPOT grows with the batch',
    sim: ['--decode-base-ms', '40', '--decode-ms-per-seq', '2', '--prefill-ms-per-token', '0.01'],
    workload: ['--random-input-len', '32', '--random-output-len', '8'],
    slo: 'mean_tpot_ms:100',
    scan: [25, 50],
  },
  {
    // 256-token prompts at 0.1 ms a token, two a step: about 39 req/s of prefill at most.
    name: 'prefill',
    bottleneck: 'prefill: prompts queue for the token budget',
    sim: [
      '--decode-base-ms',
      '4',
      '--decode-ms-per-seq',
      '0.05',
      '--prefill-ms-per-token',
      '0.1',
      '--max-num-batched-tokens',
      '512',
    ],
    workload: ['--random-input-len', '256', '--random-output-len', '2'],
    slo: 'p90_ttft_ms:250',
    scan: [22, 38],
  },
  {
    // 30 blocks of 16 tokens hold about 10 sequences of 32 + 16 tokens: requests wait for the cache.
    name: 'kv-cache',
    bottleneck: 'KV cache: requests wait for blocks',
    sim: [
      '--decode-base-ms',
      '10',
      '--decode-ms-per-seq',
      '0.1',
      '--prefill-ms-per-token',
      '0.01',
      '--num-gpu-blocks',
      '30',
      '--max-model-len',
      '256',
    ],
    workload: ['--random-input-len', '32', '--random-output-len', '16'],
    slo: 'p90_ttft_ms:100',
    scan: [36, 60],
  },
]

const BIN = fileURLToPath(new URL('../bin/servebench.js', import.meta.url))

export interface CapacityComparison {
  profile: string
  slo: string
  scanCapacity: number | null
  scanRequests: number
  searchCapacities: Array<number | null>
  searchIntervals: Array<[number | null, number | null]>
  searchRequests: number[]
  /** |median search − scan| / scan. */
  agreement: number
  /** (max − min) / median of the repeats. */
  spread: number
  /** Mean search requests / scan requests. */
  requestRatio: number
}

/** Prints the comparison table and one JSON line per profile. */
export async function printCapacity(): Promise<void> {
  const repeats = countFromEnv('CAPACITY_REPEATS', 5)
  const scale = Number(process.env.CAPACITY_SCALE ?? '1')
  if (!(scale > 0))
    throw new Error(`CAPACITY_SCALE must be a number above 0 (got ${process.env.CAPACITY_SCALE})`)
  const picked = process.env.CAPACITY_PROFILES?.split(',')
  console.log(
    `capacity search against a brute-force scan: ${repeats} searches per profile, scan scale ${scale} (load ${loadavg()[0]!.toFixed(2)})`,
  )
  const rows: CapacityComparison[] = []
  for (const profile of PROFILES.filter((p) => !picked || picked.includes(p.name))) {
    const row = await compareProfile(profile, repeats, scale)
    rows.push(row)
    console.log(JSON.stringify({ perf: 'capacity', ...row }))
  }
  console.log('')
  console.log(
    '| profile | SLO | scan capacity | search capacity (median; repeats) | agreement | spread | search / scan requests |',
  )
  console.log('|---|---|---|---|---|---|---|')
  for (const r of rows) {
    const caps = r.searchCapacities.map((c) => (c === null ? '–' : String(c))).join(', ')
    console.log(
      `| ${r.profile} | ${r.slo} | ${r.scanCapacity?.toFixed(1) ?? '–'} req/s (${r.scanRequests.toLocaleString('en-US')} req) | ${median(r.searchCapacities.filter((c): c is number => c !== null)).toFixed(1)} (${caps}) | ${(r.agreement * 100).toFixed(1)} % | ${(r.spread * 100).toFixed(1)} % | ${Math.round(mean(r.searchRequests)).toLocaleString('en-US')} / ${r.scanRequests.toLocaleString('en-US')} = ${r.requestRatio.toFixed(2)} |`,
    )
  }
}

async function compareProfile(profile: Profile, repeats: number, scale: number): Promise<CapacityComparison> {
  const sim = await startSimProcess(profile.sim)
  try {
    const config = workloadConfig(sim.url, profile)
    const issues: Array<{ path: string; message: string }> = []
    const { slos } = parseSlos([profile.slo], '--slo', undefined, issues)
    if (issues.length > 0) throw new Error(issues.map((i) => i.message).join('; '))
    // Warm the server and the client once, so the first load scanned is not the first run.
    await runBenchmark({ ...config, numPrompts: 50, load: { ...config.load, requestRate: profile.scan[0] } })
    const scan = await scanProfile(config, profile, slos, scale)
    console.log(
      `  ${profile.name} (${profile.bottleneck}), ${profile.slo}: scan ${scan.capacity?.toFixed(1) ?? 'none'} req/s from ${scan.points.length} loads × ${scan.perLoad} requests`,
    )
    const search = resolveCapacitySearch(
      { minLoad: 1, maxLoad: 1000, budgetRequests: Math.floor(scan.requests / 4) },
      (f) => f,
      issues,
    )
    const capacities: Array<number | null> = []
    const intervals: Array<[number | null, number | null]> = []
    const requests: number[] = []
    for (let i = 0; i < repeats; i++) {
      const run = await runCapacity({ config, search, slos })
      const { capacity, search: s } = run.file
      capacities.push(capacity.value)
      intervals.push([capacity.lower, capacity.upper])
      requests.push(s.total_requests)
      console.log(
        `    search ${i + 1}: ${capacity.value ?? 'none'} req/s [${capacity.lower}–${capacity.upper}], ${s.probed} loads, ${s.total_requests} requests, ${s.duration_s.toFixed(0)} s (${s.stop})`,
      )
    }
    const found = capacities.filter((c): c is number => c !== null)
    const mid = median(found)
    return {
      profile: profile.name,
      slo: profile.slo,
      scanCapacity: scan.capacity,
      scanRequests: scan.requests,
      searchCapacities: capacities,
      searchIntervals: intervals,
      searchRequests: requests,
      agreement:
        scan.capacity && found.length > 0 ? Math.abs(mid - scan.capacity) / scan.capacity : Number.NaN,
      spread: found.length > 0 ? (Math.max(...found) - Math.min(...found)) / mid : Number.NaN,
      requestRatio: mean(requests) / scan.requests,
    }
  } finally {
    sim.stop()
  }
}

/** Many loads, many requests each: where the SLO's point estimate crosses its bound. */
async function scanProfile(
  config: BenchConfig,
  profile: Profile,
  slos: readonly CapacitySlo[],
  scale: number,
): Promise<{ capacity: number | null; points: Array<[number, number]>; perLoad: number; requests: number }> {
  const count = Math.max(4, Math.round(10 * Math.min(scale, 2)))
  const perLoad = Math.max(100, Math.round(1000 * scale))
  const [lo, hi] = profile.scan
  const points: Array<[number, number]> = []
  let requests = 0
  for (let i = 0; i < count; i++) {
    const load = Number((lo * (hi / lo) ** (i / (count - 1))).toPrecision(3))
    const outcome = await runBenchmark({
      ...config,
      numPrompts: perLoad,
      numWarmups: 0,
      load: { ...config.load, requestRate: load },
    })
    requests += outcome.records.length
    const judged = judgeProbe(suiteResult(outcome), outcome.records, slos, undefined, 0.95)
    const estimate = judged.checks[0]!.estimate
    points.push([load, estimate])
    console.log(`    scan ${load} req/s: ${slos[0]!.metric} ${estimate.toFixed(1)} (${judged.verdict})`)
  }
  const bound = slos[0]!.bound
  let capacity: number | null = null
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1]!
    const [x1, y1] = points[i]!
    if (y0 <= bound && y1 > bound) {
      capacity = x0 + ((x1 - x0) * (bound - y0)) / (y1 - y0)
      break
    }
  }
  return { capacity, points, perLoad, requests }
}

function workloadConfig(url: string, profile: Profile): BenchConfig {
  const argv = [
    '--base-url',
    url,
    '--model',
    'servebench/sim-model',
    '--tokenizer',
    'cl100k_base',
    '--dataset-name',
    'random',
    '--ignore-eos',
    '--client-check',
    'warn',
    ...profile.workload,
  ]
  const flags = new Map<string, string | string[] | true>()
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1]
    if (next === undefined || next.startsWith('--')) flags.set(argv[i]!, true)
    else flags.set(argv[i]!, argv[++i]!)
  }
  return resolveServeFlags(flags, process.env)
}

async function startSimProcess(args: readonly string[]): Promise<{ url: string; stop(): void }> {
  // No prefix caching: the scan, the searches and their repeats send prompts of the same seeds.
  const child = spawn(process.execPath, [BIN, 'sim', '--port', '0', '--no-enable-prefix-caching', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let text = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk
      const m = /listening on (http:\/\/\S+)/.exec(text)
      if (m) resolve(m[1]!)
    })
    child.on('exit', (code) => reject(new Error(`servebench sim exited with ${code} before listening`)))
  })
  return { url, stop: () => child.kill('SIGTERM') }
}

function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length
}
