/**
 * A capacity search in the HTML report (a file with `servebench_kind: 'capacity'`, the shape of
 * `capacity/capacity-result.ts`): per SLO, its measured value and interval at each probed load
 * with the SLO's bound drawn across, each probe's verdict as a coloured point, and the answer
 * with its interval marked on the load axis; the answer in words; a table of the probes. Pure.
 */
import type { CapacityProbe, CapacityResultFile, CapacitySlo } from '../../capacity/capacity-result.ts'
import { num } from '../summary/pr-comment.ts'
import { MARKS } from '../summary/verdict-marks.ts'
import { type ChartMark, type ChartSpec, COLORS } from './report-charts.ts'
import type { ReportSection, ReportTable } from './report-sections.ts'

const VERDICT_COLOR = { pass: '#2ca02c', fail: '#d62728', inconclusive: '#ff7f0e' } as const
const VERDICTS = ['pass', 'fail', 'inconclusive'] as const
const AXIS_LABELS = { 'request-rate': 'offered load (req/s)', 'max-concurrency': 'concurrency' } as const

/** Whether a parsed file is a capacity result (its marker and the keys the report reads). */
export function isCapacityFile(file: Record<string, unknown>): boolean {
  return file.servebench_kind === 'capacity'
}

/**
 * The problems that keep a capacity file from being drawn, each naming the key and what is valid;
 * empty for a file the report can draw.
 */
export function capacityFileIssues(file: Record<string, unknown>): string[] {
  const issues: string[] = []
  const capacity = file.capacity as Record<string, unknown> | undefined
  if (!capacity || typeof capacity !== 'object')
    issues.push('capacity must be an object (value, lower, upper, vary, …)')
  else {
    if (capacity.vary !== 'request-rate' && capacity.vary !== 'max-concurrency')
      issues.push(
        `capacity.vary must be request-rate or max-concurrency (got ${JSON.stringify(capacity.vary)})`,
      )
    for (const key of ['value', 'lower', 'upper'] as const) {
      if (capacity[key] !== null && typeof capacity[key] !== 'number')
        issues.push(`capacity.${key} must be a number or null (got ${JSON.stringify(capacity[key])})`)
    }
  }
  if (!Array.isArray(file.slos)) issues.push('slos must be a list of {metric, bound, kind}')
  if (!Array.isArray(file.probes)) issues.push('probes must be a list of probed loads')
  else
    file.probes.forEach((p: unknown, i) => {
      const probe = p as Partial<CapacityProbe> | null
      if (!probe || typeof probe.load !== 'number' || !Array.isArray(probe.checks))
        issues.push(`probes[${i}] must have a numeric load and a list of checks`)
    })
  return issues
}

/** The answer as one line a person can act on, as `servebench capacity` prints it. */
export function capacitySentence(file: CapacityResultFile): string {
  const c = file.capacity
  const s = file.search
  const effort = `${s.probed} loads probed, ${s.total_requests.toLocaleString('en-US')} requests, ${duration(s.duration_s)}`
  if (c.value === null) {
    const lowest = Math.min(...file.probes.map((p) => p.load))
    return `no capacity: even the lowest load probed (${num(lowest)} ${c.unit}) breaks ${c.binding_slo ?? 'an SLO'}; ${effort}`
  }
  const interval =
    c.lower !== null && c.upper !== null
      ? ` (${Math.round(c.confidence * 100)}% interval ${num(c.lower)}–${num(c.upper)})`
      : ''
  const binding = c.binding_slo ? `; binding SLO: ${c.binding_slo}` : ''
  return `capacity ${num(c.value)} ${c.unit}${interval}${binding}; ${effort}`
}

/** The section of one capacity file. */
export function capacitySection(id: string, name: string, file: CapacityResultFile): ReportSection {
  const probes = [...file.probes].sort((a, b) => a.load - b.load)
  const charts = file.slos.map((slo, i) => sloChart(`${id}-slo-${i}`, file, slo, probes))
  return {
    id,
    title: `Capacity: ${name}`,
    notes: [capacitySentence(file)],
    charts,
    tables: [answerTable(file), probesTable(file)],
  }
}

// One SLO against the load: its estimate and interval at each probe, the verdicts, the bound.
function sloChart(
  id: string,
  file: CapacityResultFile,
  slo: CapacitySlo,
  probes: CapacityProbe[],
): ChartSpec {
  const written = sloText(slo)
  const checks = probes.map((p) =>
    p.checks.find((c) => c.slo === written || c.slo.startsWith(`${slo.metric}:`)),
  )
  const value = (f: (c: NonNullable<(typeof checks)[number]>) => number): Array<number | null> =>
    checks.map((c) => (c && Number.isFinite(f(c)) ? f(c) : null))
  const estimates = value((c) => c.estimate)
  const c = file.capacity
  const unit = slo.metric.endsWith('_ms') ? 'ms' : ''
  const marks: ChartMark[] = [
    {
      axis: 'y',
      value: slo.bound,
      label: `SLO ${slo.metric} ${slo.kind === 'max' ? '≤' : '≥'} ${num(slo.bound, unit || undefined)}`,
      color: '#d62728',
    },
  ]
  if (c.value !== null) {
    marks.push({ axis: 'x', value: c.value, label: `capacity ${num(c.value)} ${c.unit}`, color: '#333' })
  }
  const spec: ChartSpec = {
    id,
    title: `${slo.metric} against offered load`,
    kind: 'line',
    xLabel: AXIS_LABELS[c.vary],
    yLabel: unit || slo.metric,
    x: probes.map((p) => p.load),
    series: [
      { label: `${slo.metric} (estimate)`, values: estimates, color: COLORS[0], markers: true },
      { label: 'interval low', values: value((k) => k.lower), color: '#9ecae1', width: 1 },
      { label: 'interval high', values: value((k) => k.upper), color: '#9ecae1', width: 1 },
      ...VERDICTS.map((verdict) => ({
        label: `probe ${verdict}`,
        values: probes.map((p, i) => (p.verdict === verdict ? estimates[i]! : null)),
        color: VERDICT_COLOR[verdict],
        kind: 'points' as const,
      })),
    ],
    marks,
    yFromZero: true,
  }
  if (c.lower !== null && c.upper !== null && c.upper > c.lower) {
    spec.band = { from: c.lower, to: c.upper, label: `${Math.round(c.confidence * 100)}% interval` }
  }
  return spec
}

function answerTable(file: CapacityResultFile): ReportTable {
  const c = file.capacity
  const s = file.search
  return {
    title: 'Answer',
    head: ['key', 'value'],
    rows: [
      ['capacity', c.value === null ? 'none' : `${num(c.value)} ${c.unit}`],
      [
        `${Math.round(c.confidence * 100)}% interval`,
        c.lower === null || c.upper === null ? '–' : `${num(c.lower)} … ${num(c.upper)} ${c.unit}`,
      ],
      ['binding SLO', c.binding_slo ?? '–'],
      ['SLOs', file.slos.map(sloText).join(', ')],
      ['varied', c.vary],
      ['search range', `${num(s.min_load)} … ${num(s.max_load)} (precision ${num(s.precision)})`],
      ['loads probed', String(s.probed)],
      ['requests', `${s.total_requests} (budget ${s.budget_requests})`],
      ['duration', duration(s.duration_s)],
      ['endpoint', `${file.base_url} (${file.backend}, ${file.model_id})`],
    ],
  }
}

// The probes in the order they were run, each SLO's estimate, interval and verdict.
function probesTable(file: CapacityResultFile): ReportTable {
  const slos = file.slos.map(sloText)
  return {
    title: 'Probes (in the order run)',
    head: ['#', `load (${file.capacity.unit})`, 'verdict', 'requests', 'duration (s)', ...slos],
    rows: file.probes.map((p, i) => [
      String(i + 1),
      num(p.load),
      `${MARKS[p.verdict]} ${p.verdict}`,
      String(p.num_requests),
      num(p.duration_s),
      ...slos.map((slo, k) => {
        const check = p.checks.find((c) => c.slo === slo) ?? p.checks[k]
        if (!check) return '–'
        return `${num(check.estimate)} [${num(check.lower)} … ${num(check.upper)}] ${MARKS[check.verdict]} ${check.verdict}`
      }),
    ]),
  }
}

function sloText(slo: CapacitySlo): string {
  return `${slo.metric}:${slo.bound}`
}

function duration(seconds: number): string {
  if (!(seconds >= 60)) return `${num(seconds)} s`
  const m = Math.floor(seconds / 60)
  return `${m} min ${Math.round(seconds - m * 60)} s`
}
