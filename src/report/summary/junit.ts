/**
 * JUnit XML of a run summary: one `<testsuite>` per suite file, one `<testcase>` per benchmark, a
 * `<failure>` with every failed check, the verdict and key metrics as `<property>`s. Pure: the
 * reporter writes it (its `junit` option), in `vitest run` and `vitest bench` alike.
 * Vitest: JUnitReporter (packages/vitest/src/node/reporters/junit.ts) for the element layout.
 */
import { formatLine } from './check-format.ts'
import type { RunSummary, SummaryBenchmark } from './run-summary.ts'

/** Renders the summary as JUnit XML (the schema GitHub, GitLab and Jenkins test views read). */
export function renderJunitXml(summary: RunSummary): string {
  const files = new Map<string, SummaryBenchmark[]>()
  for (const b of summary.benchmarks) files.set(b.file, [...(files.get(b.file) ?? []), b])
  const all = summary.benchmarks
  const lines = [
    '<?xml version="1.0" encoding="UTF-8" ?>',
    `<testsuites ${attrs({ name: 'servebench', ...counts(all) })}>`,
  ]
  for (const [file, benchmarks] of files) {
    lines.push(`  <testsuite ${attrs({ name: file, timestamp: summary.date, ...counts(benchmarks) })}>`)
    for (const b of benchmarks) lines.push(...testcase(b))
    lines.push('  </testsuite>')
  }
  lines.push('</testsuites>')
  return `${lines.join('\n')}\n`
}

function counts(benchmarks: readonly SummaryBenchmark[]): Record<string, string> {
  const seconds = benchmarks.reduce((s, b) => s + (b.durationMs ?? 0), 0) / 1000
  return {
    tests: String(benchmarks.length),
    failures: String(benchmarks.filter((b) => b.state === 'failed').length),
    errors: '0',
    skipped: String(benchmarks.filter((b) => b.state === 'skipped' || b.state === 'pending').length),
    time: seconds.toFixed(3),
  }
}

function testcase(b: SummaryBenchmark): string[] {
  const head = `    <testcase ${attrs({ classname: b.file, name: b.name, time: ((b.durationMs ?? 0) / 1000).toFixed(3) })}>`
  const body: string[] = []
  const props: Array<[string, string]> = []
  if (b.verdict !== null) props.push(['servebench.verdict', b.verdict])
  if (b.invalidReason) props.push(['servebench.invalid', b.invalidReason])
  props.push(['servebench.fingerprint', b.fingerprint])
  if (b.resultFile) props.push(['servebench.result_file', b.resultFile])
  for (const [key, value] of Object.entries(b.metrics ?? {})) {
    if (typeof value === 'number' && Number.isFinite(value)) props.push([key, String(value)])
  }
  body.push('      <properties>')
  for (const [name, value] of props) body.push(`        <property ${attrs({ name, value })}/>`)
  body.push('      </properties>')
  const checkLines = b.verdicts.flatMap((v) =>
    v.checks.filter((c) => !c.pass || c.verdict !== 'pass').map((c) => `${v.matcher}: ${formatLine(c)}`),
  )
  if (b.state === 'failed') {
    const failed = b.verdicts.find((v) => !v.pass)
    const message = failed?.summary ?? firstLine(b.errors[0] ?? 'the benchmark failed')
    const text = [...checkLines, ...b.errors.filter((e) => !b.verdicts.some((v) => e.includes(v.summary)))]
    body.push(
      `      <failure ${attrs({ message, type: failed?.matcher ?? 'Error' })}>${escapeXml(text.join('\n'))}</failure>`,
    )
  } else if (b.state === 'skipped' || b.state === 'pending') {
    body.push('      <skipped/>')
  } else if (checkLines.length > 0) {
    // Passed with an inconclusive or invalid check: kept visible without failing the case.
    body.push(`      <system-out>${escapeXml(checkLines.join('\n'))}</system-out>`)
  }
  return [head, ...body, '    </testcase>']
}

function attrs(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([k, v]) => `${k}="${escapeXml(v)}"`)
    .join(' ')
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .split('')
    .filter(isXmlChar)
    .join('')
}

// Tab, LF and CR are the only control characters XML 1.0 allows (DEL is dropped too).
function isXmlChar(ch: string): boolean {
  const code = ch.charCodeAt(0)
  return code >= 32 ? code !== 127 : code === 9 || code === 10 || code === 13
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? ''
}
