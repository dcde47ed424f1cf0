import { join } from 'node:path'
import { ConfigError } from '../../errors.ts'
import { writeFigure } from '../../report/files/write.ts'
import { type FacetFigure, facetFigurePng } from '../../report/plot/facet-figure.ts'
import { paretoFrontier, paretoPoints } from '../../report/result/pareto.ts'
import type { FlagSpec } from '../flags.ts'
import type { ParsedFlags } from '../parse-args.ts'
import { outputDirOf, readSweepRuns } from './plot.ts'
import { sweepFlag } from './sweep-flags.ts'

/** The resolved options of `servebench sweep plot_pareto`. Python: SweepPlotParetoArgs (vllm/benchmarks/sweep/plot_pareto.py). */
export interface SweepPlotParetoArgs {
  outputDir: string
  userCountVar: string | null
  gpuCountVar: string | null
  dryRun: boolean
}

const f = sweepFlag

/** The flags of `vllm bench sweep plot_pareto` (its one positional argument is OUTPUT_DIR). */
export const SWEEP_PLOT_PARETO_FLAGS: readonly FlagSpec[] = [
  f(
    '--user-count-var',
    'string',
    'Result key of the concurrent user count; request_rate, then max_concurrent_requests, when the run has none.',
    { default: 'max_concurrency' },
  ),
  f(
    '--gpu-count-var',
    'string',
    'Result key of the GPU count; else tensor_parallel_size × pipeline_parallel_size × data_parallel_size (tp, pp, dp), else 1.',
  ),
  f('--dry-run', 'boolean', 'Print the figure to draw, draw none.'),
  f('--help', 'boolean', 'Show this help.', { aliases: ['-h'], parity: 'servebench' }),
]

/** Validates the flags and OUTPUT_DIR. */
export function resolveSweepPlotParetoArgs(
  flags: ParsedFlags,
  positionals: readonly string[],
): SweepPlotParetoArgs {
  const issues: Array<{ path: string; message: string }> = []
  const outputDir = outputDirOf(positionals, issues)
  const text = (name: string): string | null => {
    const value = flags.get(name)
    return typeof value === 'string' && value !== '' ? value : null
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return {
    outputDir,
    userCountVar: text('--user-count-var') ?? 'max_concurrency',
    gpuCountVar: text('--gpu-count-var'),
    dryRun: flags.has('--dry-run'),
  }
}

/**
 * `servebench sweep plot_pareto`: every run of the sweep under OUTPUT_DIR placed by output tokens/s
 * per user (x) and per GPU (y), the Pareto frontier drawn over them, in
 * `OUTPUT_DIR/pareto/PARETO.png`. Returns the file written (undefined on a dry run). Python: plot_pareto.
 */
export async function runSweepPlotPareto(
  args: SweepPlotParetoArgs,
  log: (line: string) => void,
): Promise<string | undefined> {
  const runs = await readSweepRuns(args.outputDir)
  let placed: ReturnType<typeof paretoPoints>
  try {
    placed = paretoPoints(runs, { userCountVar: args.userCountVar, gpuCountVar: args.gpuCountVar })
  } catch (error) {
    throw new ConfigError([{ path: 'OUTPUT_DIR', message: (error as Error).message }])
  }
  if (placed.skipped > 0) {
    log(
      `Skipped ${placed.skipped} runs without a user count (\`max_concurrency\` or \`max_concurrent_requests\`).`,
    )
  }
  if (placed.points.length === 0) {
    throw new ConfigError([
      {
        path: '--user-count-var',
        message: 'No data points with both throughput and user count available to plot Pareto frontier.',
      },
    ])
  }
  const path = join(args.outputDir, 'pareto', 'PARETO.png')
  log('[BEGIN FIGURE]')
  log('Group: {}')
  log(`Output file: ${path}`)
  if (args.dryRun) {
    log('[END FIGURE]')
    return undefined
  }
  const frontier = paretoFrontier(placed.points)
  const figure: FacetFigure = {
    rows: [
      [
        {
          title: '',
          series: [
            {
              label: 'All runs',
              kind: 'scatter',
              color: [128, 128, 128],
              points: placed.points.map((p) => [p.tokensPerUser, p.tokensPerGpu]),
            },
            {
              label: 'Pareto frontier',
              points: frontier.map((p) => [p.tokensPerUser, p.tokensPerGpu]),
            },
          ],
        },
      ],
    ],
    xLabel: 'Tokens/s/user',
    yLabel: 'Tokens/s/GPU',
  }
  await writeFigure(path, facetFigurePng(figure, 'servebench sweep plot_pareto'))
  log(`Plotted ${placed.points.length} points; Pareto frontier size: ${frontier.length}.`)
  log('[END FIGURE]')
  return path
}
