import type { BenchConfig } from '../../config/bench-config.ts'
import { EXIT_CODES } from '../../errors.ts'
import { hasGoodput } from '../../metrics/goodput.ts'
import { formatClientHealthLine } from '../../report/client-keys.ts'
import { formatFailedRequests, formatResultTable } from '../../report/console.ts'
import { multiRunJson } from '../../report/multi-run.ts'
import { formatMultiTurnTable } from '../../report/multi-turn.ts'
import { formatPoolingResultTable, type PoolingBenchResult } from '../../report/pooling-result.ts'
import type { BenchResult } from '../../report/result-types.ts'
import { formatSteadyStateSection } from '../../report/steady-state-console.ts'
import { sweepJson } from '../../report/sweep.ts'
import { writeResult, writeSummaryJson } from '../../report/write.ts'
import { runMultiRun } from '../../runner/multi-run.ts'
import type { RunHooks, RunOutcome } from '../../runner/run-benchmark.ts'
import { type ModeHooks, runOnce, selectRunMode } from '../../runner/run-mode.ts'
import { runSweep } from '../../runner/sweep.ts'
import { clientSaturationFailure, reportFailures } from '../failure-report.ts'

/** Whether `serve` hands this config to {@link runServeModes} instead of its single-run path. */
export function isModeRun(config: BenchConfig): boolean {
  return selectRunMode(config) !== 'single'
}

/**
 * `serve` with `--multi-turn`, a sweep or `--num-runs`: runs the mode, prints each run as a normal
 * run plus the mode's banners and summary, and writes the point files and the combined JSON when
 * `--save-result` is set. Returns the exit code.
 */
export async function runServeModes(config: BenchConfig, hooks: RunHooks): Promise<number> {
  const mode = selectRunMode(config)
  const print = (text: string): void => {
    process.stdout.write(text)
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
      if (mode === 'multi-run' || !runConfig.output.saveResult) return
      const { resultFilename: _ignored, ...output } = runConfig.output
      const path = await writeResult(outcome.result, { ...output, appendResult: false }, naming(runConfig))
      console.log(`servebench: result written to ${path}`)
    },
  }
  if (mode === 'multi-turn') {
    const outcome = await runOnce(config, hooks)
    print(formatRunReport(outcome, config))
    if (config.output.saveResult || config.output.appendResult || outcome.interrupted) {
      const path = await writeResult(outcome.result, config.output, naming(config))
      console.log(`servebench: result written to ${path}`)
    }
    checkFailures(outcome, config)
    return exitCode(outcome.interrupted)
  }
  if (mode === 'sweep' || mode === 'multi-turn-sweep') {
    const sweep = await runSweep(config, modeHooks)
    if (config.output.saveResult && sweep.points.length > 0) {
      const first = sweep.points[0]!.result
      const name = `${config.label ?? first.backend}-sweep-${sweep.sweep.parameter}-${baseModel(first)}-${first.date}.json`
      const path = await writeSummaryJson(sweepJson(sweep.sweep.parameter, sweep.points), config.output, name)
      console.log(`servebench: sweep written to ${path}`)
    }
    return exitCode(sweep.interrupted)
  }
  const multi = await runMultiRun(config, modeHooks)
  if (config.output.saveResult && multi.results.length > 0) {
    const first = multi.results[0]!
    const name = `${config.label ?? first.backend}-multi-run-${multi.results.length}runs-${baseModel(first)}-${first.date}.json`
    const path = await writeSummaryJson(multiRunJson(multi.results, multi.summary), config.output, name)
    console.log(`servebench: multi-run summary written to ${path}`)
  }
  return exitCode(multi.interrupted)
}

/** What one run prints: the failure listing, its result block, the steady-state block and the self-check line. */
function formatRunReport(outcome: RunOutcome, config: BenchConfig): string {
  const health = outcome.clientHealth ? formatClientHealthLine(outcome.clientHealth) : ''
  return formatRunTables(outcome, config) + health
}

function formatRunTables(outcome: RunOutcome, config: BenchConfig): string {
  const { result, records } = outcome
  const failed = records.filter((r) => !r.success).length
  const failures = failed > 0 ? `${formatFailedRequests(records.map((r) => r.error))}\n` : ''
  if (result.mode === 'multi_turn') return failures + formatMultiTurnTable(result, config.metricPercentiles)
  if (outcome.task === 'pooling') {
    const pooling = formatPoolingResultTable(result as unknown as PoolingBenchResult, {
      percentileMetrics: config.percentileMetrics,
      metricPercentiles: config.metricPercentiles,
      failed,
    })
    return failures + pooling + formatSteadyStateSection(result.steady_state)
  }
  const table = formatResultTable(result, {
    percentileMetrics: config.percentileMetrics,
    metricPercentiles: config.metricPercentiles,
    hasTokenizer: !config.tokenizer.skipInit,
    goodputSet: hasGoodput(config.goodput),
  })
  return failures + table + formatSteadyStateSection(result.steady_state)
}

function naming(config: BenchConfig): { label?: string; maxConcurrency?: number } {
  return {
    ...(config.label !== undefined ? { label: config.label } : {}),
    ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
  }
}

function baseModel(result: BenchResult): string {
  return result.model_id.split('/').at(-1) ?? result.model_id
}
