import type { BenchConfig } from '../../config/bench-config.ts'
import { EXIT_CODES } from '../../errors.ts'
import { hasGoodput } from '../../metrics/goodput.ts'
import { formatFailedRequests, formatResultTable } from '../../report/console/console.ts'
import { formatSteadyStateSection } from '../../report/console/steady-state-console.ts'
import {
  type ResultNaming,
  type RunFile,
  writeMultiRunFile,
  writeRunFiles,
  writeSweepFile,
} from '../../report/files/run-files.ts'
import { formatClientHealthLine } from '../../report/result/client-keys.ts'
import { formatMultiTurnTable } from '../../report/result/multi-turn.ts'
import { formatPoolingResultTable } from '../../report/result/pooling-result.ts'
import { runMultiRun } from '../../runner/multi-run.ts'
import { runBenchmark } from '../../runner/run-benchmark.ts'
import type { ModeHooks, RunPlan } from '../../runner/run-plan.ts'
import type { RunHooks, RunOutcome } from '../../runner/run-types.ts'
import { runSweep } from '../../runner/sweep.ts'
import { terminalSafe } from '../../terminal-text.ts'
import { clientSaturationFailure, reportFailures } from '../failure-report.ts'

/** A plan that `serve` runs through {@link runServeModes} rather than its single-run path. */
export type ModePlan = Exclude<RunPlan, { kind: 'single' }>

const WRITTEN: Record<RunFile, string> = {
  result: 'result',
  pytorch: 'PyTorch benchmark records',
  segment: 'segment',
  timeline: 'timeline',
  'dataset-stats': 'dataset statistics plot',
}

/** `servebench: result written to …`: the line `serve` prints for each file of a run. */
export function logWritten(file: RunFile, path: string): void {
  console.log(`servebench: ${WRITTEN[file]} written to ${path}`)
}

/**
 * `serve` with `--multi-turn`, a sweep or `--num-runs`: runs the mode, prints each run as a normal
 * run plus the mode's banners and summary, and writes the point files and the combined JSON when
 * `--save-result` is set. Returns the exit code.
 */
export async function runServeModes(plan: ModePlan, hooks: RunHooks): Promise<number> {
  const { config } = plan
  const print = (text: string): void => {
    process.stdout.write(terminalSafe(text))
  }
  // --max-failure-ratio warns and --fail-on-error-ratio fails per run: each sweep point, each of
  // --num-runs, the multi-turn run (its turns are its requests).
  let verdictFailed = false
  // Any run whose client was saturated (a sweep point, one of --num-runs) exits 4 under --client-check fail.
  let saturated = false
  const checkFailures = (outcome: RunOutcome, runConfig: BenchConfig): void => {
    const failures = reportFailures(runConfig, outcome.records, outcome.retries)
    for (const line of failures.lines) console.error(line)
    if (failures.failed) verdictFailed = true
    if (outcome.clientHealth?.saturated) saturated = true
  }
  const exitCode = (interrupted: boolean): number => {
    if (interrupted) return EXIT_CODES.interrupted
    const saturation = clientSaturationFailure(config, saturated)
    if (saturation) {
      console.error(saturation)
      return EXIT_CODES.clientSaturated
    }
    return verdictFailed ? EXIT_CODES.verdictFailed : EXIT_CODES.ok
  }
  const modeHooks: ModeHooks = {
    ...hooks,
    print,
    onRunEnd: async (outcome, runConfig) => {
      print(formatRunReport(outcome, runConfig))
      checkFailures(outcome, runConfig)
      // Sweep points are saved one file each, named by their own config; multi-runs save only the summary.
      if (plan.kind === 'multi-run' || !runConfig.output.saveResult) return
      const { resultFilename: _ignored, ...output } = runConfig.output
      await writeRunFiles(outcome, {
        output: { ...output, appendResult: false },
        naming: resultNaming(runConfig),
        result: true,
        onWritten: logWritten,
      })
    },
  }
  switch (plan.kind) {
    case 'multi-turn': {
      const outcome = await runBenchmark(config, hooks)
      print(formatRunReport(outcome, config))
      await writeRunFiles(outcome, {
        output: config.output,
        naming: resultNaming(config),
        result: config.output.saveResult || config.output.appendResult || outcome.interrupted,
        onWritten: logWritten,
      })
      checkFailures(outcome, config)
      return exitCode(outcome.interrupted)
    }
    case 'sweep': {
      const sweep = await runSweep(plan, modeHooks)
      if (config.output.saveResult) {
        const path = await writeSweepFile(
          { parameter: sweep.sweep.parameter, points: sweep.points },
          { output: config.output, ...(config.label !== undefined ? { label: config.label } : {}) },
        )
        if (path) console.log(`servebench: sweep written to ${path}`)
      }
      return exitCode(sweep.interrupted)
    }
    case 'multi-run': {
      const multi = await runMultiRun(plan, modeHooks)
      if (config.output.saveResult) {
        const path = await writeMultiRunFile(multi, {
          output: config.output,
          ...(config.label !== undefined ? { label: config.label } : {}),
        })
        if (path) console.log(`servebench: multi-run summary written to ${path}`)
      }
      return exitCode(multi.interrupted)
    }
  }
}

/** What one run prints: the failure listing, its result block, the steady-state block and the self-check line. */
export function formatRunReport(outcome: RunOutcome, config: BenchConfig): string {
  const health = outcome.clientHealth ? formatClientHealthLine(outcome.clientHealth) : ''
  return formatRunTables(outcome, config) + health
}

function formatRunTables(outcome: RunOutcome, config: BenchConfig): string {
  const { records } = outcome
  const failed = records.filter((r) => !r.success).length
  const failures = failed > 0 ? `${formatFailedRequests(records.map((r) => r.error))}\n` : ''
  switch (outcome.kind) {
    case 'multi-turn':
      return failures + formatMultiTurnTable(outcome.result, config.metricPercentiles)
    case 'pooling': {
      const pooling = formatPoolingResultTable(outcome.result, {
        percentileMetrics: config.percentileMetrics,
        metricPercentiles: config.metricPercentiles,
        failed,
      })
      return failures + pooling + formatSteadyStateSection(outcome.result.steady_state)
    }
    case 'generation': {
      const table = formatResultTable(outcome.result, {
        percentileMetrics: config.percentileMetrics,
        metricPercentiles: config.metricPercentiles,
        hasTokenizer: !config.tokenizer.skipInit,
        goodputSet: hasGoodput(config.goodput),
      })
      return failures + table + formatSteadyStateSection(outcome.result.steady_state)
    }
  }
}

/** `--label` and the run's concurrency, which name its files. */
export function resultNaming(config: BenchConfig): ResultNaming {
  return {
    ...(config.label !== undefined ? { label: config.label } : {}),
    ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
  }
}
