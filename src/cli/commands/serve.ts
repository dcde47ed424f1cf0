import { streamLimitsFrom } from '../../backends/stream-limits.ts'
import type { BenchConfig } from '../../config/bench-config.ts'
import { EXIT_CODES } from '../../errors.ts'
import { hasGoodput } from '../../metrics/goodput.ts'
import { dryRunJson } from '../../options/dry-run.ts'
import { resolveServeFlags } from '../../options/serve-flags.ts'
import { formatClientHealthLine } from '../../report/client-keys.ts'
import { formatFailedRequests, formatResultTable } from '../../report/console.ts'
import { datasetStatsInput, datasetStatsPng } from '../../report/dataset-stats-plot.ts'
import { formatPoolingResultTable, type PoolingBenchResult } from '../../report/pooling-result.ts'
import { formatSteadyStateSection } from '../../report/steady-state-console.ts'
import { buildTimelineHtml } from '../../report/timeline-html.ts'
import {
  checkOutputDestination,
  resultPath,
  writeDatasetStats,
  writeResult,
  writeTimeline,
} from '../../report/write.ts'
import { redactUrl } from '../../runner/redact.ts'
import { runBenchmark } from '../../runner/run-benchmark.ts'
import { clientSaturationFailure, reportFailures } from '../failure-report.ts'
import { findFlag } from '../flags.ts'
import { formatServeHelp } from '../help.ts'
import { exitSoonAfterInterrupt, installInterrupts } from '../interrupts.ts'
import { parseArgs } from '../parse-args.ts'
import { createProgress } from '../progress.ts'
import { writeSegmentOutput } from '../segment-output.ts'
import { runCompareCommand } from './compare.ts'
import { isModeRun, runServeModes } from './serve-modes.ts'

/** `servebench serve`: flags → BenchConfig → runBenchmark → the console table and the result file. */
export async function runServeCommand(argv: readonly string[]): Promise<number> {
  const flags = parseArgs(argv)
  if (flags.has('--help')) {
    process.stdout.write(formatServeHelp())
    return EXIT_CODES.ok
  }
  const compare = flags.get('--compare')
  if (compare !== undefined) return runCompareCommand(Array.isArray(compare) ? compare : [String(compare)])
  const config = resolveServeFlags(flags, process.env, (name) => findFlag(name)?.status)
  if (flags.has('--dry-run')) {
    process.stdout.write(`${JSON.stringify(dryRunJson(config), null, 2)}\n`)
    return EXIT_CODES.ok
  }
  streamLimitsFrom(process.env) // A bad SERVEBENCH_MAX_* value is a usage error before anything is sent.
  // Every output destination is checked before the first request (exit 2, nothing sent).
  const { output } = config
  if (output.saveResult || output.appendResult || output.plotTimeline || output.plotDatasetStats) {
    await checkOutputDestination(output)
  }
  printSetup(config)

  const interrupts = installInterrupts((line) => console.error(line))
  const signals = { signal: interrupts.signal, forceSignal: interrupts.forceSignal }
  const progress = createProgress(process.stderr, !config.disableTqdm)
  try {
    if (isModeRun(config)) {
      // Each plot is drawn from one run's result; a sweep, --num-runs or --multi-turn has several or none.
      for (const [flag, on] of [
        ['--plot-timeline', config.output.plotTimeline],
        ['--plot-dataset-stats', config.output.plotDatasetStats],
      ] as const) {
        if (on)
          console.error(`servebench: ${flag} applies to single runs only; no plot is written for this run`)
      }
      const code = await runServeModes(config, {
        ...signals,
        log: (line) => console.log(line),
        onRequestEnd: (done, total) => progress.update(done, total),
      })
      progress.finish()
      if (code === EXIT_CODES.interrupted) exitSoonAfterInterrupt()
      return code
    }
    const outcome = await runBenchmark(config, {
      ...signals,
      log: (line) => console.log(line),
      onRequestEnd: (done, total) => progress.update(done, total),
    })
    const { result, records, task, interrupted, retries, clientHealth } = outcome
    progress.finish()
    // Counted from the records: a pooling result has no `failed` key.
    const failed = records.filter((r) => !r.success).length
    if (result.completed === 0 && failed > 0) console.error('servebench: All requests failed.')
    if (failed > 0) console.log(formatFailedRequests(records.map((r) => r.error)))
    process.stdout.write(
      task === 'pooling'
        ? formatPoolingResultTable(result as unknown as PoolingBenchResult, {
            percentileMetrics: config.percentileMetrics,
            metricPercentiles: config.metricPercentiles,
            failed,
          })
        : formatResultTable(result, {
            percentileMetrics: config.percentileMetrics,
            metricPercentiles: config.metricPercentiles,
            hasTokenizer: !config.tokenizer.skipInit,
            goodputSet: hasGoodput(config.goodput),
          }),
    )
    process.stdout.write(formatSteadyStateSection(result.steady_state))
    if (clientHealth) process.stdout.write(formatClientHealthLine(clientHealth))
    const naming = {
      ...(config.label !== undefined ? { label: config.label } : {}),
      ...(config.load.maxConcurrency ? { maxConcurrency: config.load.maxConcurrency } : {}),
    }
    if (config.output.saveResult || config.output.appendResult || interrupted) {
      const path = await writeResult(result, config.output, naming)
      console.log(`servebench: result written to ${path}`)
    }
    const segmentPath = await writeSegmentOutput(config, outcome, naming)
    if (segmentPath)
      console.log(
        `servebench: segment ${config.segment?.index}/${config.segment?.count} written to ${segmentPath}`,
      )
    if (config.output.plotTimeline) {
      // Named after the result file, as Python does, whether or not the result is saved.
      if (task === 'pooling') {
        console.error('servebench: --plot-timeline: a pooling run has no token stream; no timeline written')
      } else {
        const html = buildTimelineHtml(result, {
          ...(config.output.timelineItlThresholdsMs
            ? { itlThresholdsMs: config.output.timelineItlThresholdsMs }
            : {}),
        })
        const path = await writeTimeline(html, resultPath(result, config.output, naming))
        console.log(`servebench: timeline written to ${path}`)
      }
    }
    if (config.output.plotDatasetStats) {
      // Python draws it from the run's input_lens and output_lens, whether or not the result is saved.
      const lens = datasetStatsInput(result)
      if (lens === undefined) {
        console.error(
          'servebench: --plot-dataset-stats: the run has no input and output lengths to plot (a pooling run has no output lengths); no plot written',
        )
      } else {
        const path = await writeDatasetStats(datasetStatsPng(lens), resultPath(result, config.output, naming))
        console.log(`servebench: dataset statistics plot written to ${path}`)
      }
    }
    const failures = reportFailures(config, records, retries)
    for (const line of failures.lines) console.error(line)
    if (interrupted) {
      console.error(`servebench: interrupted; the result holds the ${records.length} requests that were sent`)
      exitSoonAfterInterrupt()
      return EXIT_CODES.interrupted
    }
    // A run in which no request succeeded measured nothing: exit 1, even within --fail-on-error-ratio.
    const noneSucceeded = records.length > 0 && failed === records.length
    if (noneSucceeded) return EXIT_CODES.verdictFailed
    const saturation = clientSaturationFailure(config, clientHealth?.saturated === true)
    if (saturation) {
      console.error(saturation)
      return EXIT_CODES.clientSaturated
    }
    return failures.failed ? EXIT_CODES.verdictFailed : EXIT_CODES.ok
  } finally {
    interrupts.dispose()
  }
}

function printSetup(config: BenchConfig): void {
  const { endpoint, dataset, load } = config
  console.log(
    `servebench serve: ${endpoint.backend} ${redactUrl(endpoint.baseUrl)}${endpoint.endpointPath} model=${endpoint.model ?? '(from /v1/models)'} ` +
      `dataset=${dataset.kind} input=${'inputLen' in dataset ? dataset.inputLen : 0} output=${'outputLen' in dataset ? dataset.outputLen : 0} prompts=${config.numPrompts} ` +
      `rate=${Number.isFinite(load.requestRate) ? load.requestRate : 'inf'} concurrency=${load.maxConcurrency ?? 'None'} seed=${config.seed}`,
  )
}
