/**
 * A parser for the Prometheus text exposition format 0.0.4, which vLLM's `/metrics` serves: comments,
 * `# HELP` and `# TYPE` lines, samples with escaped label values, optional timestamps, and the
 * `_bucket`/`_sum`/`_count` series of histograms. Pure: text in, plain data out.
 */

export type PrometheusType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'

/** One sample line: `name{label="value",...} value [timestamp]`. */
export interface PrometheusSample {
  name: string
  labels: Record<string, string>
  /** `NaN`, `+Inf` and `-Inf` are read as the JS values. */
  value: number
  timestampMs?: number
}

/** A parsed exposition: samples in text order, plus the declared types and help texts by family name. */
export interface PrometheusExposition {
  samples: PrometheusSample[]
  types: Record<string, PrometheusType>
  help: Record<string, string>
}

/** One histogram series (one label set besides `le`). */
export interface PrometheusHistogram {
  labels: Record<string, string>
  /** Cumulative counts by upper bound, ascending; the last bound is `Infinity`. */
  buckets: Array<{ le: number; count: number }>
  sum: number
  count: number
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/
const TYPES: readonly PrometheusType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped']

/** Parses an exposition; a malformed line throws an `Error` naming its line number and what is wrong. */
export function parsePrometheusText(text: string): PrometheusExposition {
  const out: PrometheusExposition = { samples: [], types: {}, help: {} }
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '')
    if (line.trim() === '') continue
    try {
      if (line.startsWith('#')) readComment(line, out)
      else out.samples.push(readSample(line.replace(/^[ \t]+/, '')))
    } catch (error) {
      throw new Error(`Prometheus text line ${i + 1}: ${(error as Error).message}`)
    }
  }
  return out
}

/** Sum of the samples named exactly `name` over every label set (a counter summed over engines and models). */
export function sumSamples(samples: readonly PrometheusSample[], name: string): number | undefined {
  let total: number | undefined
  for (const sample of samples) if (sample.name === name) total = (total ?? 0) + sample.value
  return total
}

/** The histogram series of family `name`, one per label set, from its `_bucket`, `_sum` and `_count` samples. */
export function histogramSeries(exposition: PrometheusExposition, name: string): PrometheusHistogram[] {
  const series = new Map<string, PrometheusHistogram>()
  const seriesOf = (labels: Record<string, string>): PrometheusHistogram => {
    const { le: _le, ...rest } = labels
    const key = JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)))
    let entry = series.get(key)
    if (!entry) {
      entry = { labels: rest, buckets: [], sum: 0, count: 0 }
      series.set(key, entry)
    }
    return entry
  }
  for (const sample of exposition.samples) {
    if (sample.name === `${name}_bucket` && sample.labels.le !== undefined) {
      seriesOf(sample.labels).buckets.push({ le: parseValue(sample.labels.le), count: sample.value })
    } else if (sample.name === `${name}_sum`) seriesOf(sample.labels).sum = sample.value
    else if (sample.name === `${name}_count`) seriesOf(sample.labels).count = sample.value
  }
  for (const entry of series.values()) entry.buckets.sort((a, b) => a.le - b.le)
  return [...series.values()]
}

function readComment(line: string, out: PrometheusExposition): void {
  // Lines end only at \n (the text format's rule): `s` lets `.` match U+2028, U+2029 and a lone CR.
  const match = /^#[ \t]+(HELP|TYPE)[ \t]+([^ \t]+)(?:[ \t](.*))?$/s.exec(line)
  // Any other comment is free text.
  if (!match) return
  const [, keyword, name, rest = ''] = match
  if (!NAME.test(name!) || NAME.exec(name!)![0] !== name) throw new Error(`bad metric name "${name}"`)
  if (keyword === 'HELP') {
    out.help[name!] = unescapeHelp(rest)
    return
  }
  const type = rest.trim() as PrometheusType
  if (!TYPES.includes(type)) throw new Error(`unknown type "${rest.trim()}" for ${name}`)
  out.types[name!] = type
}

function readSample(line: string): PrometheusSample {
  const nameMatch = NAME.exec(line)
  if (!nameMatch) throw new Error(`expected a metric name at "${line.slice(0, 20)}"`)
  const name = nameMatch[0]
  let at = name.length
  const labels: Record<string, string> = {}
  if (line[at] === '{') at = readLabels(line, at + 1, labels)
  const rest = line.slice(at)
  const fields = rest.trim().split(/[ \t]+/)
  if (!/^[ \t]/.test(rest) || fields.length < 1 || fields.length > 2 || fields[0] === '') {
    throw new Error(`expected "value [timestamp]" after ${name}`)
  }
  const sample: PrometheusSample = { name, labels, value: parseValue(fields[0]!) }
  if (fields[1] !== undefined) {
    if (!/^-?\d+$/.test(fields[1])) throw new Error(`bad timestamp "${fields[1]}"`)
    sample.timestampMs = Number(fields[1])
  }
  return sample
}

/** Reads `name="value",...}` from `at`; returns the index after `}`. */
function readLabels(line: string, start: number, labels: Record<string, string>): number {
  let at = start
  for (;;) {
    while (line[at] === ' ' || line[at] === '\t') at++
    if (line[at] === '}') return at + 1
    const nameMatch = LABEL_NAME.exec(line.slice(at))
    if (!nameMatch) throw new Error(`expected a label name at column ${at + 1}`)
    const labelName = nameMatch[0]
    at += labelName.length
    while (line[at] === ' ' || line[at] === '\t') at++
    if (line[at] !== '=') throw new Error(`expected "=" after label ${labelName}`)
    at++
    while (line[at] === ' ' || line[at] === '\t') at++
    if (line[at] !== '"') throw new Error(`expected a quoted value for label ${labelName}`)
    at++
    let value = ''
    for (;;) {
      const ch = line[at]
      if (ch === undefined) throw new Error(`unterminated value of label ${labelName}`)
      if (ch === '"') break
      if (ch === '\\') {
        const next = line[at + 1]
        if (next === 'n') value += '\n'
        else if (next === '\\' || next === '"') value += next
        else throw new Error(`bad escape "\\${next ?? ''}" in label ${labelName}`)
        at += 2
        continue
      }
      value += ch
      at++
    }
    at++
    if (labelName in labels) throw new Error(`duplicate label ${labelName}`)
    labels[labelName] = value
    while (line[at] === ' ' || line[at] === '\t') at++
    if (line[at] === ',') at++
    else if (line[at] !== '}') throw new Error(`expected "," or "}" after label ${labelName}`)
  }
}

/** Go's ParseFloat spellings as Prometheus writes them: decimals, exponents, `NaN`, `+Inf`, `-Inf`. */
function parseValue(raw: string): number {
  const lower = raw.toLowerCase()
  if (lower === 'nan') return Number.NaN
  if (lower === '+inf' || lower === 'inf') return Number.POSITIVE_INFINITY
  if (lower === '-inf') return Number.NEGATIVE_INFINITY
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) throw new Error(`bad value "${raw}"`)
  return Number(raw)
}

/** HELP text escapes only `\\` and `\n`. */
function unescapeHelp(text: string): string {
  return text.replace(/\\([n\\])/g, (_whole, ch: string) => (ch === 'n' ? '\n' : '\\'))
}
