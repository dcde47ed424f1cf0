import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigError } from '../../errors.ts'
import { writeFigure } from '../../report/files/write.ts'
import {
  type AxisScale,
  type FacetFigure,
  type FigurePanel,
  facetFigurePng,
} from '../../report/plot/facet-figure.ts'
import { parsePythonJson } from '../../report/result/py-json.ts'
import type { FlagSpec } from '../flags.ts'
import type { ParsedFlags } from '../parse-args.ts'
import { pythonStr, sanitizeFilename } from './param-sweep.ts'
import {
  applyBinners,
  applyFilters,
  convertInfNan,
  type PlotBinner,
  type PlotFilter,
  parseBinners,
  parseFilters,
  type RunRecord,
} from './plot-filters.ts'
import { sweepFlag } from './sweep-flags.ts'

/** The resolved options of `servebench sweep plot`. Python: SweepPlotArgs (vllm/benchmarks/sweep/plot.py). */
export interface SweepPlotArgs {
  outputDir: string
  figDir: string
  figBy: string[]
  rowBy: string[]
  colBy: string[]
  curveBy: string[]
  varX: string
  varY: string
  filterBy: PlotFilter[]
  binBy: PlotBinner[]
  scaleX?: AxisScale
  scaleY?: AxisScale
  figName: string
  dryRun: boolean
}

const SCALES: readonly AxisScale[] = ['linear', 'log', 'sqrt']

const f = sweepFlag

/** The flags of `vllm bench sweep plot` (its one positional argument is OUTPUT_DIR). */
export const SWEEP_PLOT_FLAGS: readonly FlagSpec[] = [
  f('--fig-dir', 'string', 'Folder of the figures, relative to OUTPUT_DIR.', {
    default: 'OUTPUT_DIR itself',
  }),
  f('--fig-by', 'string', 'Comma-separated variables: one figure per combination of their values.'),
  f('--row-by', 'string', 'Comma-separated variables: one row of panels per combination.'),
  f('--col-by', 'string', 'Comma-separated variables: one column of panels per combination.'),
  f('--curve-by', 'string', 'Comma-separated variables: one curve per combination.'),
  f('--var-x', 'string', 'The variable on the x axis.', { default: 'request_throughput' }),
  f('--var-y', 'string', 'The variable on the y axis.', { default: 'p99_e2el_ms' }),
  f(
    '--filter-by',
    'string',
    'Comma-separated statements the plotted runs must meet (`max_concurrency<1000,max_num_batched_tokens<=4096`); operators == != < <= > >=.',
  ),
  f(
    '--bin-by',
    'string',
    'Comma-separated VARIABLE%SIZE: values floored to bins of SIZE (`request_throughput%1`).',
  ),
  f('--scale-x', 'string', 'The x axis scale.', { choices: SCALES, default: 'linear' }),
  f('--scale-y', 'string', 'The y axis scale.', { choices: SCALES, default: 'linear' }),
  f('--fig-name', 'string', 'Name prefix of the figure files; the figure group is appended.', {
    default: 'FIGURE',
  }),
  f('--dry-run', 'boolean', 'Print each figure to draw, draw none.'),
  f('--help', 'boolean', 'Show this help.', { aliases: ['-h'], parity: 'servebench' }),
]

/** Validates the flags and OUTPUT_DIR; every issue at once. */
export function resolveSweepPlotArgs(flags: ParsedFlags, positionals: readonly string[]): SweepPlotArgs {
  const text = (name: string): string => {
    const value = flags.get(name)
    return typeof value === 'string' ? value : ''
  }
  const list = (name: string): string[] => (text(name) ? text(name).split(',') : [])
  const issues: ConstructorParameters<typeof ConfigError>[0] = []
  const outputDir = outputDirOf(positionals, issues)
  const scale = (name: string): AxisScale | undefined => {
    const value = text(name)
    if (!value) return undefined
    if (SCALES.includes(value as AxisScale)) return value as AxisScale
    issues.push({ path: name, message: `must be one of ${SCALES.join(', ')} (got ${value})` })
    return undefined
  }
  let filterBy: PlotFilter[] = []
  let binBy: PlotBinner[] = []
  try {
    filterBy = parseFilters(text('--filter-by'))
  } catch (error) {
    issues.push(...(error as ConfigError).issues)
  }
  try {
    binBy = parseBinners(text('--bin-by'))
  } catch (error) {
    issues.push(...(error as ConfigError).issues)
  }
  const args: SweepPlotArgs = {
    outputDir,
    figDir: join(outputDir, text('--fig-dir')),
    figBy: list('--fig-by'),
    rowBy: list('--row-by'),
    colBy: list('--col-by'),
    curveBy: list('--curve-by'),
    varX: text('--var-x') || 'request_throughput',
    varY: text('--var-y') || 'p99_e2el_ms',
    filterBy,
    binBy,
    figName: text('--fig-name') || 'FIGURE',
    dryRun: flags.has('--dry-run'),
  }
  const scaleX = scale('--scale-x')
  const scaleY = scale('--scale-y')
  if (scaleX) args.scaleX = scaleX
  if (scaleY) args.scaleY = scaleY
  if (issues.length > 0) throw new ConfigError(issues)
  return args
}

/** OUTPUT_DIR, which must exist. Python: from_cli_args ("No parameter sweep results under …"). */
export function outputDirOf(
  positionals: readonly string[],
  issues: Array<{ path: string; message: string }>,
): string {
  const dir = positionals[0] ?? ''
  if (positionals.length !== 1) {
    issues.push({
      path: 'OUTPUT_DIR',
      message: `is one folder of sweep results (got ${positionals.length} arguments)`,
    })
  } else if (!existsSync(dir)) {
    issues.push({
      path: 'OUTPUT_DIR',
      message: `${dir} does not exist: no parameter sweep results under it`,
    })
  }
  return dir
}

/**
 * Every run of every `summary.json` under `dir` (its subfolders included), in path order; a
 * ConfigError when there is none. Python: `output_dir.rglob("**\/summary.json")`.
 */
export async function readSweepRuns(dir: string): Promise<RunRecord[]> {
  const files = (await readdir(dir, { recursive: true }))
    .filter((p) => p === 'summary.json' || p.endsWith('/summary.json'))
    .sort()
  const runs: RunRecord[] = []
  for (const file of files) {
    const data = parsePythonJson(await readFile(join(dir, file), 'utf8'))
    if (Array.isArray(data)) runs.push(...(data as RunRecord[]))
  }
  if (runs.length === 0) {
    throw new ConfigError([
      {
        path: 'OUTPUT_DIR',
        message: `${dir} holds no summary.json: did not find any parameter sweep results under it`,
      },
    ])
  }
  return runs
}

/**
 * `servebench sweep plot`: one PNG per `--fig-by` group (`<fig-dir>/<fig-name>-k=v….png`), each a
 * grid of panels (`--row-by` × `--col-by`) with one curve per `--curve-by` group of `--var-y`
 * against `--var-x`, runs at the same x averaged (seaborn's lineplot estimator). Returns the
 * files written (none on a dry run). Python: plot.
 */
export async function runSweepPlot(args: SweepPlotArgs, log: (line: string) => void): Promise<string[]> {
  const runs = await readSweepRuns(args.outputDir)
  const written: string[] = []
  for (const [group, data] of groupBy(runs, args.figBy)) {
    const rows = groupBy(data, args.rowBy)
    const cols = Math.max(...rows.map(([, rowData]) => groupBy(rowData, args.colBy).length))
    const path = join(
      args.figDir,
      sanitizeFilename(`${[args.figName, ...group.map(([k, v]) => `${k}=${v}`)].join('-')}.png`),
    )
    log('[BEGIN FIGURE]')
    log(`Group: ${pythonStr(Object.fromEntries(group))}`)
    log(`Grid: ${rows.length} rows x ${cols} cols`)
    log(`Output file: ${path}`)
    if (args.dryRun) {
      log('[END FIGURE]')
      continue
    }
    const records = data.map(convertInfNan)
    checkColumns(records, args)
    const shown = applyBinners(applyFilters(records, args.filterBy), args.binBy)
    written.push(await writeFigure(path, facetFigurePng(plotFigure(shown, args), 'servebench sweep plot')))
    log('[END FIGURE]')
  }
  return written
}

/** The panels and curves of one figure, from its runs. */
export function plotFigure(runs: readonly RunRecord[], args: SweepPlotArgs): FacetFigure {
  const label = (keys: readonly string[], group: ReadonlyArray<[string, string]>): string =>
    keys.length === 0 ? '' : group.map(([k, v]) => `${k}=${v}`).join('\n')
  const rows: FigurePanel[][] = groupBy(runs, args.rowBy).map(([rowGroup, rowData]) =>
    groupBy(rowData, args.colBy).map(([colGroup, cellData]) => ({
      title: [label(args.rowBy, rowGroup), label(args.colBy, colGroup)].filter(Boolean).join('\n'),
      series: groupBy(cellData, args.curveBy).map(([curveGroup, curveData]) => ({
        label: args.curveBy.length === 0 ? args.varY : curveGroup.map(([k, v]) => `${k}=${v}`).join(', '),
        points: meanByX(curveData, args.varX, args.varY),
      })),
    })),
  )
  const figure: FacetFigure = { rows, xLabel: args.varX, yLabel: args.varY }
  if (args.curveBy.length > 0) figure.legendTitle = args.curveBy.join(', ')
  if (args.scaleX) figure.xScale = args.scaleX
  if (args.scaleY) figure.yScale = args.scaleY
  return figure
}

/**
 * The runs grouped by the values of `keys` (as Python's `str()` writes them), groups in order of
 * first appearance; a run without one of the keys is a ConfigError. Python: full_groupby, _get_group.
 */
export function groupBy(
  runs: readonly RunRecord[],
  keys: readonly string[],
): Array<[Array<[string, string]>, RunRecord[]]> {
  const groups = new Map<string, [Array<[string, string]>, RunRecord[]]>()
  for (const run of runs) {
    const group = keys.map((k): [string, string] => {
      if (!(k in run)) {
        throw new ConfigError([
          { path: k, message: `Cannot find metric '${k}' in the run data of ${runName(run)}` },
        ])
      }
      return [k, pythonStr(run[k])]
    })
    const id = JSON.stringify(group)
    const entry = groups.get(id) ?? [group, []]
    entry[1].push(run)
    groups.set(id, entry)
  }
  return [...groups.values()]
}

// Python checks the figure's columns before drawing: a variable no run has is named with the others.
function checkColumns(runs: readonly RunRecord[], args: SweepPlotArgs): void {
  const columns = [...new Set(runs.flatMap((r) => Object.keys(r)))]
  const wanted: Array<[string, string]> = [
    ['--var-x', args.varX],
    ['--var-y', args.varY],
    ...args.rowBy.map((k): [string, string] => ['--row-by', k]),
    ...args.colBy.map((k): [string, string] => ['--col-by', k]),
    ...args.curveBy.map((k): [string, string] => ['--curve-by', k]),
  ]
  const issues = wanted
    .filter(([, name]) => !columns.includes(name))
    .map(([flag, name]) => ({
      path: flag,
      message: `Cannot find ${name} in parameter sweep results. Available variables: ${columns.join(', ')}`,
    }))
  if (issues.length > 0) throw new ConfigError(issues)
}

function meanByX(runs: readonly RunRecord[], varX: string, varY: string): Array<[number, number]> {
  const sums = new Map<number, { sum: number; n: number }>()
  for (const run of runs) {
    const x = run[varX]
    const y = run[varY]
    if (typeof x !== 'number' || typeof y !== 'number' || Number.isNaN(x) || Number.isNaN(y)) continue
    const s = sums.get(x) ?? { sum: 0, n: 0 }
    s.sum += y
    s.n++
    sums.set(x, s)
  }
  return [...sums.entries()].sort((a, b) => a[0] - b[0]).map(([x, s]) => [x, s.sum / s.n])
}

function runName(run: RunRecord): string {
  return typeof run._benchmark_name === 'string' ? run._benchmark_name : `run ${pythonStr(run.run_number)}`
}
