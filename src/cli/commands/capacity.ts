import { formatCapacityLine, saturatedDecidingLoads } from '../../capacity/answer.ts'
import type { CapacityProbe, CapacityResultFile } from '../../capacity/capacity-result.ts'
import { resolveCapacitySearch } from '../../capacity/options.ts'
import { runCapacity } from '../../capacity/run-capacity.ts'
import { parseSlos, sloLabel } from '../../capacity/slo.ts'
import type { BenchConfig } from '../../config/bench-config.ts'
import { ConfigError, type ConfigIssue, EXIT_CODES } from '../../errors.ts'
import { checkResultNames, safeFileNamePart } from '../../file-names.ts'
import { dryRunJson } from '../../options/dry-run.ts'
import { resolveServeFlags } from '../../options/serve-flags.ts'
import { checkOutputDestination, writeSummaryJson } from '../../report/files/write.ts'
import { redactUrl } from '../../runner/redact.ts'
import { terminalSafe } from '../../terminal-text.ts'
import {
  CAPACITY_COMMAND_FLAGS,
  capacityFlagOf,
  formatCapacityHelp,
  takeCapacityFlags,
  throwIssues,
} from '../capacity-flags.ts'
import { findFlag } from '../flags.ts'
import { exitSoonAfterInterrupt, installInterrupts } from '../interrupts.ts'
import { asksForHelp } from '../parse-args.ts'
import { parseServeArgv } from '../serve-argv.ts'

/**
 * `servebench capacity`: serve's flags plus `--slo`, `--vary` and the search range → one capacity
 * search (`capacity/run-capacity.ts`) → a line per probe, the answer's line, and with
 * `--save-result` the capacity result file. Exit 0 with a capacity, 1 when even the lowest load
 * breaks an SLO, 2 on bad input.
 */
export async function runCapacityCommand(argv: readonly string[]): Promise<number> {
  if (asksForHelp(argv)) {
    process.stdout.write(formatCapacityHelp())
    return EXIT_CODES.ok
  }
  const { flags } = parseServeArgv(argv, CAPACITY_COMMAND_FLAGS, 'servebench capacity')
  const issues: ConfigIssue[] = []
  const taken = takeCapacityFlags(flags, issues)
  let config: BenchConfig | undefined
  try {
    config = resolveServeFlags(flags, process.env, (name) => findFlag(name)?.status)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    issues.push(...error.issues)
  }
  const search = resolveCapacitySearch(taken.search, capacityFlagOf, issues)
  const { slos, goodput } = parseSlos(taken.slos, '--slo', config?.goodput, issues)
  if (config) issues.push(...checkResultNames({ ...config.output, label: config.label }))
  throwIssues(issues)
  if (!config) throw new Error('capacity: no configuration without an issue. This is a bug in servebench.')
  if (flags.has('--dry-run')) {
    process.stdout.write(
      `${JSON.stringify({ ...dryRunJson(config), capacity: { search, slos } }, null, 2)}\n`,
    )
    return EXIT_CODES.ok
  }
  if (config.output.saveResult) await checkOutputDestination(config.output)
  const unit = search.vary === 'request-rate' ? 'req/s' : 'concurrency'
  console.log(
    `servebench capacity: ${config.endpoint.backend} ${redactUrl(config.endpoint.baseUrl)}${config.endpoint.endpointPath} ` +
      `vary=${search.vary} range=${search.minLoad}–${search.maxLoad} ${unit} SLOs: ${slos.map((s) => sloLabel(s, goodput)).join(', ')} ` +
      `(confidence ${search.confidence}, precision ${search.precision}, ${search.probeRequests} requests a probe, budget ${search.budgetRequests})`,
  )
  const interrupts = installInterrupts((line) => console.error(line))
  try {
    const run = await runCapacity({
      config,
      search,
      slos,
      ...(goodput ? { goodput } : {}),
      signal: interrupts.signal,
      runHooks: { forceSignal: interrupts.forceSignal },
      onProbe: (probe, index) => console.log(terminalSafe(probeLine(probe, index, unit))),
    })
    const { file } = run
    for (const probe of file.probes)
      if (probe.client_saturated)
        console.error(
          `servebench: the client self-check found the client saturated at ${probe.load} ${unit}: that probe's latencies measure the client (see docs/client-health.md)`,
        )
    const lowest = [...file.probes].sort((a, b) => a.load - b.load)[0]
    console.log(
      formatCapacityLine({
        answer: file.capacity,
        slos,
        ...(goodput ? { goodput } : {}),
        probed: file.search.probed,
        totalRequests: file.search.total_requests,
        durationS: file.search.duration_s,
        ...(lowest ? { lowestLoad: lowest.load, undecided: lowest.verdict === 'inconclusive' } : {}),
      }),
    )
    if (config.output.saveResult || run.interrupted) {
      const path = await writeSummaryJson(
        file as unknown as Record<string, unknown>,
        config.output,
        defaultName(file, config),
      )
      console.log(`servebench: capacity result written to ${path}`)
    }
    if (run.interrupted) {
      console.error(`servebench: interrupted; the result holds the ${file.search.probed} loads probed`)
      exitSoonAfterInterrupt()
      return EXIT_CODES.interrupted
    }
    const clientBound = saturatedDecidingLoads(file)
    if (clientBound.length > 0 && config.clientCheck === 'fail') {
      console.error(
        `servebench: FAILED: the client was saturated at ${clientBound.join(', ')} ${unit}, a load that decided the answer: the capacity found may be the client's, not the server's (--client-threads, --segment or a quieter machine; --client-check warn to accept it)`,
      )
      return EXIT_CODES.clientSaturated
    }
    return file.capacity.value === null ? EXIT_CODES.verdictFailed : EXIT_CODES.ok
  } finally {
    interrupts.dispose()
  }
}

/** `probe 3: 27 req/s → fail: p99_ttft_ms 812 [640–1020] (bound 500); 300 requests, 1 round, 11.2 s`. */
export function probeLine(probe: CapacityProbe, index: number, unit: string): string {
  const checks = probe.checks
    .map(
      (c) =>
        `${c.slo.replace(/:[^:]*$/, '')} ${fmt(c.estimate)} [${fmt(c.lower)}–${fmt(c.upper)}] ${c.verdict}`,
    )
    .join(', ')
  const rounds = probe.rounds ?? 1
  return `probe ${index + 1}: ${probe.load} ${unit} → ${probe.verdict}: ${checks}; ${probe.num_requests} requests, ${rounds} round${rounds === 1 ? '' : 's'}, ${probe.duration_s.toFixed(1)} s`
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? '∞' : x < 0 ? '-∞' : 'n/a'
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toPrecision(3)
}

function defaultName(file: CapacityResultFile, config: BenchConfig): string {
  const model = safeFileNamePart(file.model_id || config.endpoint.model || 'model')
  return `capacity-${config.endpoint.backend}-${model}-${file.date}.json`
}
