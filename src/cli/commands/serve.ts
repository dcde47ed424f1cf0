import { streamLimitsFrom } from '../../backends/stream-limits.ts'
import type { BenchConfig } from '../../config/bench-config.ts'
import { ConfigError, EXIT_CODES } from '../../errors.ts'
import { checkResultNames } from '../../file-names.ts'
import { dryRunJson } from '../../options/dry-run.ts'
import { resolveServeFlags } from '../../options/serve-flags.ts'
import { writeRunFiles } from '../../report/files/run-files.ts'
import { checkOutputDestination } from '../../report/files/write.ts'
import { pytorchArgs, pytorchFormatRequested } from '../../report/result/pytorch-format.ts'
import { redactDeep, redactUrl, secretsOf } from '../../runner/redact.ts'
import { runBenchmark } from '../../runner/run-benchmark.ts'
import { planRun } from '../../runner/run-plan.ts'
import { segmentFileOf } from '../../runner/segment-file-of.ts'
import { terminalSafe } from '../../terminal-text.ts'
import { clientSaturationFailure, reportFailures } from '../failure-report.ts'
import { findFlag } from '../flags.ts'
import { formatServeHelp, formatServeHelpSearch } from '../help.ts'
import { exitSoonAfterInterrupt, installInterrupts } from '../interrupts.ts'
import { createProgress } from '../progress.ts'
import { parseServeArgv } from '../serve-argv.ts'
import { runCompareCommand } from './compare.ts'
import { formatRunReport, logWritten, resultNaming, runServeModes } from './serve-modes.ts'

/** `servebench serve`: flags → BenchConfig → RunPlan → runBenchmark → the console table and the run's files. */
export async function runServeCommand(argv: readonly string[]): Promise<number> {
  const { flags, helpKeyword, duplicateKeys } = parseServeArgv(argv)
  if (flags.has('--help')) {
    process.stdout.write(helpKeyword === undefined ? formatServeHelp() : formatServeHelpSearch(helpKeyword))
    return EXIT_CODES.ok
  }
  if (duplicateKeys.length > 0) {
    console.error(`servebench: duplicate keys, the last value wins: ${duplicateKeys.join(', ')}`)
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
  const badNames = checkResultNames({ ...output, label: config.label })
  if (badNames.length > 0) throw new ConfigError(badNames)
  if (output.saveResult || output.appendResult || output.plotTimeline || output.plotDatasetStats) {
    await checkOutputDestination(output)
  }
  printSetup(config)

  const interrupts = installInterrupts((line) => console.error(line))
  const signals = { signal: interrupts.signal, forceSignal: interrupts.forceSignal }
  const progress = createProgress(process.stderr, !config.disableTqdm)
  try {
    const plan = planRun(config)
    if (plan.kind !== 'single') {
      // Each plot is drawn from one run's result; a sweep, --num-runs or --multi-turn has several or none.
      for (const [flag, on] of [
        ['--plot-timeline', config.output.plotTimeline],
        ['--plot-dataset-stats', config.output.plotDatasetStats],
      ] as const) {
        if (on)
          console.error(`servebench: ${flag} applies to single runs only; no plot is written for this run`)
      }
      const code = await runServeModes(plan, {
        ...signals,
        log: (line) => console.log(terminalSafe(line)),
        onRequestEnd: (done, total, request) => progress.update(done, total, request),
      })
      progress.finish()
      if (code === EXIT_CODES.interrupted) exitSoonAfterInterrupt()
      return code
    }
    const outcome = await runBenchmark(config, {
      ...signals,
      log: (line) => console.log(terminalSafe(line)),
      onRequestEnd: (done, total, request) => progress.update(done, total, request),
    })
    progress.finish()
    const { records, interrupted, retries, clientHealth } = outcome
    // Counted from the records: a pooling result has no `failed` key.
    const failed = records.filter((r) => !r.success).length
    if (outcome.result.completed === 0 && failed > 0) console.error('servebench: All requests failed.')
    process.stdout.write(terminalSafe(formatRunReport(outcome, config)))
    const { output } = config
    await writeRunFiles(outcome, {
      output,
      naming: resultNaming(config),
      result: output.saveResult || output.appendResult || interrupted,
      // Named after the result file, as Python does, whether or not the result is saved.
      timeline: output.plotTimeline
        ? output.timelineItlThresholdsMs
          ? { itlThresholdsMs: output.timelineItlThresholdsMs }
          : {}
        : false,
      datasetStats: output.plotDatasetStats,
      // Python: with SAVE_TO_PYTORCH_BENCHMARK_FORMAT set, `<name>.pytorch.json` beside a saved result.
      ...(pytorchFormatRequested(process.env)
        ? {
            pytorch: {
              args: redactDeep(pytorchArgs(flags), secretsOf(config.endpoint)),
              model: config.endpoint.model ?? null,
            },
          }
        : {}),
      ...(config.segment ? { segment: segmentFileOf(config, outcome) } : {}),
      onWritten: logWritten,
      onSkipped: (file, reason) =>
        console.error(
          `servebench: ${file === 'timeline' ? '--plot-timeline' : '--plot-dataset-stats'}: ${reason}`,
        ),
    })
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
