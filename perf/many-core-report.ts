/**
 * What `npm run perf -- many-core` prints and writes: the Markdown table (the columns), one
 * JSON line per cell, and the verdict on the many-core target. Pure but for {@link ReportFiles},
 * which rewrites the files in `MANY_CORE_OUT` after every cell, so a run cut short leaves what it
 * measured.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Cell } from './many-core-cells.ts'

/** The target at the largest concurrency: one process, default settings, against segments. */
export const TARGET = { itlSlackMs: 15, shareOfSegments: 0.95 }

/** A cell with the simulator's mean step lag over it. */
export type MeasuredCell = Cell & { simStepLagMeanMs?: number }

const HEADER = [
  '| C | client | req/s (ideal) | ITL p99 | TTFT p99 | self-check | sim step lag |',
  '|---|---|---|---|---|---|---|',
]

/** One table row. */
export function tableRow(cell: MeasuredCell): string {
  const c = cell.concurrency.toLocaleString('en')
  const label =
    cell.clientThreads !== undefined && cell.threads === 'auto'
      ? `${cell.label} (${cell.clientThreads} thread${cell.clientThreads === 1 ? '' : 's'})`
      : cell.label
  if (cell.error !== undefined) return `| ${c} | ${label} | – | – | – | ${cellText(cell.error)} | – |`
  const rate = `${fixed(cell.reqPerS, 0)} (${fixed(cell.idealReqPerS, 0)})`
  const failed = cell.failed ? `, ${cell.failed} failed` : ''
  const lag = cell.simStepLagMeanMs === undefined ? '–' : `${fixed(cell.simStepLagMeanMs, 1)} ms`
  return `| ${c} | ${label} | ${rate}${failed} | ${ms(cell.itlP99Ms)} | ${ms(cell.ttftP99Ms)} | ${cellText(short(cell.selfCheck))} | ${lag} |`
}

/** The rows in the order: per concurrency, Python, threads ascending, auto, segments. */
export function table(cells: readonly MeasuredCell[]): string[] {
  const rank = (cell: Cell): number =>
    cell.client === 'python' ? 0 : cell.client === 'segments' ? 3 : cell.threads === 'auto' ? 2 : 1
  const sorted = [...cells].sort(
    (a, b) =>
      a.concurrency - b.concurrency ||
      rank(a) - rank(b) ||
      (typeof a.threads === 'number' && typeof b.threads === 'number' ? a.threads - b.threads : 0),
  )
  return [...HEADER, ...sorted.map(tableRow)]
}

/**
 * The target's verdict at the largest concurrency measured: the `auto` run's self-check ok, its
 * ITL p99 within {@link TARGET}.itlSlackMs of the true ITL, and its throughput at least
 * {@link TARGET}.shareOfSegments of the segments'.
 */
export function targetVerdict(cells: readonly Cell[], trueItlMs: number): string {
  const top = Math.max(...cells.map((c) => c.concurrency))
  const at = cells.filter((c) => c.concurrency === top && c.error === undefined)
  const auto = at.find((c) => c.client === 'servebench' && c.threads === 'auto')
  const segments = at.find((c) => c.client === 'segments')
  if (!auto || !segments || auto.reqPerS === undefined || segments.reqPerS === undefined) {
    return `target at concurrency ${top}: not judged (the auto run or the segments run did not finish)`
  }
  const share = auto.reqPerS / segments.reqPerS
  const checks = [
    `self-check ${auto.selfCheck === 'ok' ? 'ok' : 'not ok'}`,
    `ITL p99 ${ms(auto.itlP99Ms)} (${(auto.itlP99Ms ?? Number.POSITIVE_INFINITY) - trueItlMs <= TARGET.itlSlackMs ? 'within' : 'beyond'} ${TARGET.itlSlackMs} ms of ${trueItlMs} ms)`,
    `${(share * 100).toFixed(1)}% of the segments' throughput (${fixed(auto.reqPerS, 0)} against ${fixed(segments.reqPerS, 0)} req/s; target ${TARGET.shareOfSegments * 100}%)`,
  ]
  const met =
    auto.selfCheck === 'ok' &&
    (auto.itlP99Ms ?? Number.POSITIVE_INFINITY) - trueItlMs <= TARGET.itlSlackMs &&
    share >= TARGET.shareOfSegments
  return `target at concurrency ${top}, one process with default settings: ${met ? 'MET' : 'NOT MET'} — ${checks.join('; ')}`
}

/** The Markdown table and the JSON lines, rewritten whole in `dir` after every cell. */
export class ReportFiles {
  private readonly dir: string | undefined
  private readonly header: string[]
  private readonly json: string[]

  constructor(dir: string | undefined, header: string[], machine: object) {
    this.dir = dir
    this.header = header
    this.json = [JSON.stringify({ perf: 'many-core-machine', ...machine })]
    if (dir) mkdirSync(dir, { recursive: true })
  }

  /** Rewrites both files with every cell so far, and `footer` lines under the table. */
  write(cells: readonly MeasuredCell[], footer: readonly string[] = []): void {
    if (!this.dir) return
    const lines = [...this.header, '', ...table(cells), '', ...footer]
    writeFileSync(join(this.dir, 'many-core.md'), `${lines.join('\n')}\n`)
    const json = [
      ...this.json,
      ...cells.map(cellJson),
      ...footer.map((line) => JSON.stringify({ perf: 'many-core-note', line })),
    ]
    writeFileSync(join(this.dir, 'many-core.jsonl'), `${json.join('\n')}\n`)
  }
}

/** A cell as one JSON line. */
export function cellJson(cell: MeasuredCell): string {
  return JSON.stringify({ perf: 'many-core', ...cell })
}

function ms(value: number | undefined): string {
  if (value === undefined) return '–'
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`
}

function fixed(value: number | undefined, digits: number): string {
  return value === undefined
    ? '–'
    : value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits })
}

function short(text: string): string {
  return text.length > 90 ? `${text.slice(0, 87)}…` : text
}

function cellText(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ')
}
