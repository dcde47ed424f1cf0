/**
 * GitHub Actions workflow commands for a run: `::error` for each failed check, `::warning` for an
 * inconclusive (whatever its policy did to the assertion) or invalid one, each at the benchmark's file and line. Pure: the reporter prints
 * them when `GITHUB_ACTIONS` is `true`, in `vitest run` and `vitest bench` alike.
 * Vitest: formatMessage (packages/vitest/src/node/reporters/github-actions.ts).
 */
import { formatLine } from './check-format.ts'
import type { SummaryBenchmark } from './run-summary.ts'

/** Where a benchmark is declared: the `serveBench(...)` call in its suite file. */
export interface BenchmarkLocation {
  /** The suite file, as the annotation names it (relative to the workspace). */
  file: string
  line?: number
  column?: number
}

/** One workflow command. */
export interface GithubAnnotation {
  command: 'error' | 'warning'
  file: string
  line?: number
  column?: number
  title: string
  message: string
}

/** The annotations of one benchmark: its failed checks, then its undecided or invalid ones and its notes. */
export function benchmarkAnnotations(
  b: Pick<SummaryBenchmark, 'name' | 'state' | 'verdict' | 'invalidReason' | 'verdicts' | 'errors'> & {
    warnings?: readonly string[]
  },
  where: BenchmarkLocation,
): GithubAnnotation[] {
  const at = {
    file: where.file,
    ...(where.line !== undefined ? { line: where.line } : {}),
    ...(where.column !== undefined ? { column: where.column } : {}),
  }
  const out: GithubAnnotation[] = []
  const title = (what: string): string => `servebench: ${b.name} › ${what}`
  if (b.invalidReason) {
    out.push({ command: 'warning', ...at, title: title('invalid'), message: b.invalidReason })
  }
  for (const v of b.verdicts) {
    for (const c of v.checks) {
      // Under `.not`, a missed check is the expected outcome.
      if (!c.pass && v.pass) continue
      if (c.pass && c.verdict === 'pass') continue
      if (c.verdict === 'invalid' && b.invalidReason) continue // Said once, above.
      // Only a decided fail is an error: an inconclusive check is a warning whatever the policy
      // did to the assertion (docs/ci.md).
      out.push({
        command: c.verdict === 'fail' ? 'error' : 'warning',
        ...at,
        title: title(`${v.matcher} ${c.metric}`),
        message: formatLine(c),
      })
    }
  }
  // A failure that no check explains: an endpoint error, a thrown configuration error, a timeout.
  const first = b.errors.find((e) => !b.verdicts.some((v) => e.includes(v.summary)))
  // A failure its checks explain (an inconclusive check failed by the policy) is said by them.
  const explained = first === undefined && b.verdicts.some((v) => !v.pass)
  if (b.state === 'failed' && !explained && !out.some((a) => a.command === 'error')) {
    out.push({
      command: 'error',
      ...at,
      title: title('failed'),
      message: firstLine(first ?? b.errors[0] ?? 'the benchmark failed'),
    })
  }
  for (const w of b.warnings ?? []) out.push({ command: 'warning', ...at, title: title('note'), message: w })
  return out
}

/** `::error file=suites/chat.bench.ts,line=12,title=…::✗ p99 TTFT 412.3 ms > 300 ms`. */
export function formatAnnotation(a: GithubAnnotation): string {
  const props: Array<[string, string]> = [['file', a.file]]
  if (a.line !== undefined) props.push(['line', String(a.line)])
  if (a.column !== undefined) props.push(['col', String(a.column)])
  props.push(['title', a.title])
  const head = props.map(([k, v]) => `${k}=${escapeProperty(v)}`).join(',')
  return `::${a.command} ${head}::${escapeData(a.message)}`
}

// GitHub's escaping: @actions/core toCommandValue / escapeData / escapeProperty.
function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C')
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? ''
}
