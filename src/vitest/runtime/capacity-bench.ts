/**
 * `serveBench.capacity(name, options, assertions)`: a capacity search as a Vitest task. The options
 * are serveBench's (endpoint, dataset, load shape) plus `slo` and `search`, validated when the file
 * is collected; the task runs `capacity/run-capacity.ts` and hands its result (the capacity result
 * file's shape) to the assertions, where `toSustain` and `toMatchBaseline` judge it.
 */
import { inject, type TestContext } from 'vitest'
import { saturatedDecidingLoads } from '../../capacity/answer.ts'
import type { CapacityResultFile } from '../../capacity/capacity-result.ts'
import {
  type CapacitySearchOptions,
  refusedCapacityOptions,
  resolveCapacitySearch,
} from '../../capacity/options.ts'
import { runCapacity } from '../../capacity/run-capacity.ts'
import { parseSlos, SLO_LATENCY_METRICS } from '../../capacity/slo.ts'
import type { ServeBenchOptions } from '../../config/dsl-options.ts'
import { configWorkload, fingerprintOf } from '../../config/fingerprint.ts'
import { mergeVerdictOptions, resolveVerdictOptions } from '../../config/verdict-options.ts'
import { ConfigError, type ConfigIssue } from '../../errors.ts'
import { resolveDsl } from '../../options/from-dsl.ts'
import { runBenchmark } from '../../runner/run-benchmark.ts'
import type { LatencyBounds, ServeBenchMeta, WorkerSettings } from '../shared/meta.ts'
import { dslContextOf } from './dsl-context.ts'
import { collectProvenance } from './provenance.ts'

/** The SLOs of a capacity search, in the words of `toMeetSLO`. @experimental */
export interface CapacitySloSpec {
  /** Time to first token, ms: `{ p99: 500 }`, `{ mean: 200 }`. */
  ttft?: CapacityLatencyBounds
  /** Time per output token, ms. */
  tpot?: CapacityLatencyBounds
  /** Inter-token latency, ms. */
  itl?: CapacityLatencyBounds
  /** End-to-end latency, ms. */
  e2el?: CapacityLatencyBounds
  /** Largest fraction of failed requests, 0–1. */
  errorRate?: number
  /** Smallest fraction of requests within the benchmark's `goodput` limits, 0–1. */
  goodput?: number
}

/** Latency bounds a capacity SLO takes: the mean, the median and percentiles. */
export type CapacityLatencyBounds = Pick<LatencyBounds, 'mean' | 'median' | `p${number}`>

/** The options of `serveBench.capacity`: serveBench's, without a load rate to set, plus the search. @experimental */
export interface CapacityBenchOptions extends ServeBenchOptions {
  slo: CapacitySloSpec
  /** How the search runs; see docs/capacity.md. @default {} */
  search?: CapacitySearchOptions
}

/** Assertions on a finished capacity search. */
export type CapacityAssertions = (capacity: CapacityResultFile) => void | Promise<void>

/** `serveBench.capacity(name, options, assertions?)`. @experimental */
export type CapacityBenchFn = (
  name: string,
  options: CapacityBenchOptions,
  assertions?: CapacityAssertions,
) => void

type TestLike = (
  name: string,
  options: { timeout?: number; meta?: { servebench?: ServeBenchMeta } },
  fn: (context: TestContext) => Promise<void>,
) => void

/** Builds `serveBench.capacity` over a Vitest test API and the worker's settings. */
export function defineCapacity(api: TestLike, settingsOf: () => WorkerSettings): CapacityBenchFn {
  return (name, options, assertions) => {
    const where = `serveBench.capacity('${name}')`
    const { slo, search: searchOptions, ...serveOptions } = options
    const settings = settingsOf()
    // What `servebench capacity` refuses is refused here too, in the DSL's words.
    const refused = (flags: { has(name: string): boolean }) =>
      refusedCapacityOptions(flags, searchOptions?.vary)
    const { config } = resolveDsl(serveOptions, dslContextOf(name, settings), refused)
    const verdictOptions = resolveVerdictOptions(
      mergeVerdictOptions(inject('servebench:verdicts'), options.verdicts),
      `${where}.verdicts`,
    )
    const issues: ConfigIssue[] = []
    const search = resolveCapacitySearch(
      { confidence: verdictOptions.confidence, ...searchOptions },
      (field) => `${where}.search.${field}`,
      issues,
    )
    const parsed = parseSlos(sloTexts(slo, `${where}.slo`, issues), `${where}.slo`, config.goodput, issues)
    if (issues.length > 0) throw new ConfigError(issues)
    const workload = { ...configWorkload(config), capacity: { slos: parsed.slos, search } }
    const collected: ServeBenchMeta = {
      name,
      fingerprint: fingerprintOf(workload),
      verdicts: [],
      workload,
      confidence: search.confidence,
      inconclusivePolicy: verdictOptions.inconclusive,
    }
    const testOptions = {
      meta: { servebench: collected },
      ...(options.timeoutMs !== undefined ? { timeout: options.timeoutMs } : {}),
    }
    api(name, testOptions, async ({ task, signal }) => {
      const meta: ServeBenchMeta = { ...collected, verdicts: [] }
      task.meta.servebench = meta
      const run = await runCapacity({
        config: verdictOptions.clientCheck === 'off' ? { ...config, clientCheck: 'off' } : config,
        search,
        slos: parsed.slos,
        ...(parsed.goodput ? { goodput: parsed.goodput } : {}),
        signal,
        measure: (c) => runBenchmark(c, { signal }),
      })
      meta.capacity = run.file
      meta.interrupted = run.interrupted
      meta.provenance = await collectProvenance({
        baseUrl: config.endpoint.baseUrl,
        headers: {},
        tokenizer: null,
      })
      if (settings.simulator && meta.provenance.server) meta.provenance.server.host = 'embedded simulator'
      const saturated = run.file.probes.filter((p) => p.client_saturated).map((p) => p.load)
      const clientBound = saturatedDecidingLoads(run.file)
      // As for every benchmark: a client that set the latencies where they decide makes the run invalid.
      if (clientBound.length > 0 && verdictOptions.clientCheck === 'fail')
        meta.invalid = `the client was saturated at ${clientBound.join(', ')} ${run.file.capacity.unit}, a load that decided the answer: the capacity found may be the client's`
      else if (saturated.length > 0)
        meta.warnings = [
          `client self-check: the client was saturated at ${saturated.join(', ')} ${run.file.capacity.unit}; those probes measured the client`,
        ]
      try {
        await assertions?.(run.file)
      } finally {
        // A first run records its baseline rather than being compared: it says so, once.
        const recorded = new Set(meta.verdicts.filter((v) => v.recording === true).map((v) => v.summary))
        if (recorded.size > 0) meta.warnings = [...(meta.warnings ?? []), ...recorded]
      }
    })
  }
}

// The SLO object as `--slo` texts: `{ ttft: { p99: 500 } }` → `p99_ttft_ms:500`.
function sloTexts(slo: unknown, path: string, issues: ConfigIssue[]): string[] {
  if (typeof slo !== 'object' || slo === null || Array.isArray(slo)) {
    issues.push({ path, message: 'is required: an object such as { ttft: { p99: 500 }, errorRate: 0.01 }' })
    return []
  }
  const texts: string[] = []
  for (const [key, value] of Object.entries(slo)) {
    if ((SLO_LATENCY_METRICS as readonly string[]).includes(key)) {
      if (typeof value !== 'object' || value === null) {
        issues.push({ path: `${path}.${key}`, message: 'must be an object of bounds such as { p99: 500 }' })
        continue
      }
      for (const [stat, bound] of Object.entries(value))
        texts.push(`${stat}_${key}_ms:${typeof bound === 'number' ? bound : String(bound)}`)
    } else if (key === 'errorRate') texts.push(`error_rate:${String(value)}`)
    else if (key === 'goodput') texts.push(`goodput:${String(value)}`)
    else
      issues.push({
        path: `${path}.${key}`,
        message: `is not an SLO (valid: ${SLO_LATENCY_METRICS.join(', ')}, errorRate, goodput)`,
      })
  }
  if (texts.length === 0 && issues.length === 0) issues.push({ path, message: 'names no SLO' })
  return texts
}
