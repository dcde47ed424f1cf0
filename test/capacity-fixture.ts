/**
 * A capacity result file built from real runs: `servebench serve` against the simulator at each
 * load given (with per-request arrays), each SLO judged on the run's own requests with the same
 * bound check the verdicts use, and the answer taken from those verdicts (the highest load below
 * the first one that did not pass; its interval reaches the next load probed). For the HTML
 * report's tests; the search itself is `servebench capacity`'s.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect } from 'vitest'
import type {
  CapacityCheck,
  CapacityProbe,
  CapacityResultFile,
  CapacitySlo,
} from '../src/capacity/capacity-result.ts'
import { assignBlocks } from '../src/metrics/blocks.ts'
import { checkStatisticBound } from '../src/metrics/bound-check.ts'
import type { Decision } from '../src/metrics/decide.ts'
import { runCli } from './helpers.ts'

/** What the fixture probes: request rates (req/s) and the SLOs (`pNN_` or `mean_` of `ttft`/`e2el` in ms). */
export interface CapacityFixtureOptions {
  baseUrl: string
  dir: string
  loads: number[]
  slos: CapacitySlo[]
  numPrompts?: number
  /** Sets each SLO's bound from its checks at each load (judged first against the given bound). */
  boundFrom?: (slo: CapacitySlo, checks: CapacityCheck[]) => number
}

const FAMILY_KEYS = { ttft: 'ttfts', e2el: 'latencies' } as const

/** Runs each load, judges it, and returns the capacity file. */
export async function capacityFixture(options: CapacityFixtureOptions): Promise<CapacityResultFile> {
  const runs: Array<Record<string, unknown>> = []
  for (const [i, load] of options.loads.entries()) {
    const resultDir = join(options.dir, `probe-${i}`)
    const run = await runCli([
      'serve',
      ...['--base-url', options.baseUrl, '--tokenizer', 'cl100k_base', '--model', 'sim'],
      ...[
        '--random-input-len',
        '32',
        '--random-output-len',
        '8',
        '--num-prompts',
        String(options.numPrompts ?? 24),
      ],
      ...['--request-rate', String(load), '--seed', '1', '--disable-tqdm'],
      ...['--save-result', '--save-detailed', '--result-dir', resultDir],
    ])
    expect(run.code, run.stderr).toBe(0)
    const [file] = await readdir(resultDir)
    runs.push(JSON.parse(await readFile(join(resultDir, file!), 'utf8')))
  }
  const slos = options.slos.map((slo) =>
    options.boundFrom
      ? {
          ...slo,
          bound: options.boundFrom(
            slo,
            runs.map((r) => judge(r, slo)),
          ),
        }
      : slo,
  )
  const probes: CapacityProbe[] = runs.map((result, i) => {
    const checks = slos.map((slo) => judge(result, slo))
    return {
      load: options.loads[i]!,
      verdict: overall(checks.map((c) => c.verdict)),
      num_requests: Number(result.completed) + Number(result.failed ?? 0),
      duration_s: Number(result.duration),
      checks,
      result: Object.fromEntries(Object.entries(result).filter(([, v]) => !Array.isArray(v))),
    }
  })
  const order = [...probes].sort((a, b) => a.load - b.load)
  const firstMiss = order.findIndex((p) => p.verdict !== 'pass')
  const held = firstMiss === -1 ? order : order.slice(0, firstMiss)
  const value = held.at(-1)?.load ?? null
  const above = firstMiss === -1 ? undefined : order[firstMiss]
  const binding = above?.checks.find((c) => c.verdict !== 'pass')?.slo ?? null
  const first = runs[0]!
  return {
    servebench_kind: 'capacity',
    date: String(first.date),
    backend: String(first.backend),
    model_id: String(first.model_id),
    base_url: options.baseUrl,
    capacity: {
      value,
      lower: value,
      upper: value === null ? null : (above?.load ?? value),
      vary: 'request-rate',
      unit: 'req/s',
      binding_slo: binding,
      confidence: 0.95,
    },
    slos,
    probes,
    search: {
      min_load: order[0]!.load,
      max_load: order.at(-1)!.load,
      precision: 0.05,
      budget_requests: 10_000,
      probed: probes.length,
      total_requests: probes.reduce((n, p) => n + p.num_requests, 0),
      duration_s: probes.reduce((s, p) => s + p.duration_s, 0),
    },
  }
}

// One SLO on one run's requests, as the verdicts judge a bound (interval and decision).
function judge(result: Record<string, unknown>, slo: CapacitySlo): CapacityCheck {
  const match = /^(mean|median|p\d+(?:\.\d+)?)_(ttft|e2el)_ms$/.exec(slo.metric)
  if (!match) throw new Error(`the capacity fixture judges pNN_/mean_ ttft or e2el in ms (got ${slo.metric})`)
  const [, statistic, family] = match as unknown as [string, string, keyof typeof FAMILY_KEYS]
  const seconds = result[FAMILY_KEYS[family]] as number[]
  const starts = result.start_times as number[]
  const ok = (result.errors as string[]).map((e) => e === '')
  const values = seconds.filter((_, i) => ok[i]).map((s) => s * 1000)
  const blocks = assignBlocks(starts.filter((_, i) => ok[i]))
  const check = checkStatisticBound({ values, blocks }, statistic!, slo.bound, { kind: slo.kind, seed: 0 })
  return {
    slo: `${slo.metric}:${slo.bound}`,
    verdict: check.verdict,
    estimate: check.estimate,
    lower: check.interval[0],
    upper: check.interval[1],
  }
}

function overall(verdicts: readonly Decision[]): Decision {
  if (verdicts.includes('fail')) return 'fail'
  return verdicts.every((v) => v === 'pass') ? 'pass' : 'inconclusive'
}
