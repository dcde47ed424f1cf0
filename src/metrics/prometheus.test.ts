import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  histogramSeries,
  type PrometheusSample,
  type PrometheusType,
  parsePrometheusText,
  sumSamples,
} from './prometheus.ts'

// A writer of the text format, independent of the parser, for round trips.
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
}
function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Number.POSITIVE_INFINITY) return '+Inf'
  if (value === Number.NEGATIVE_INFINITY) return '-Inf'
  return String(value)
}
function writeSample(s: PrometheusSample): string {
  const labels = Object.entries(s.labels)
  const labelText = labels.length ? `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}` : ''
  const ts = s.timestampMs !== undefined ? ` ${s.timestampMs}` : ''
  return `${s.name}${labelText} ${formatValue(s.value)}${ts}`
}

const metricName = fc.stringMatching(/^[a-zA-Z_:][a-zA-Z0-9_:]{0,20}$/)
const labelName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,10}$/)
const labelValue = fc.string({ unit: 'grapheme', maxLength: 12 })
const value = fc.oneof(
  fc.double({ noNaN: false }),
  fc.integer({ min: -1e9, max: 1e9 }),
  fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, 0),
)
const sample = fc.record(
  {
    name: metricName,
    labels: fc.dictionary(labelName, labelValue, { maxKeys: 4 }),
    value,
    timestampMs: fc.integer({ min: -1e12, max: 1e13 }),
  },
  { requiredKeys: ['name', 'labels', 'value'] },
)
const family = fc.record({
  name: metricName,
  type: fc.constantFrom<PrometheusType>('counter', 'gauge', 'histogram', 'summary', 'untyped'),
  // A trailing CR would read as a CRLF line end.
  help: fc.string({ unit: 'grapheme', maxLength: 30 }).filter((h) => !h.endsWith('\r')),
})

describe('parsePrometheusText', () => {
  it('round-trips generated samples, label escaping and special values included', () => {
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 20 }), (samples) => {
        const text = `${samples.map(writeSample).join('\n')}\n`
        const parsed = parsePrometheusText(text).samples
        expect(parsed).toHaveLength(samples.length)
        parsed.forEach((got, i) => {
          const want = samples[i]!
          expect(got.name).toBe(want.name)
          expect(got.labels).toEqual({ ...want.labels })
          // String(-0) is "0".
          expect(got.value).toBe(want.value === 0 ? 0 : want.value)
          expect(got.timestampMs).toBe(want.timestampMs)
        })
      }),
    )
  })

  it('round-trips HELP and TYPE lines with escaped help text', () => {
    fc.assert(
      fc.property(fc.uniqueArray(family, { selector: (f) => f.name, maxLength: 8 }), (families) => {
        const text = families
          .map(
            (f) =>
              `# HELP ${f.name} ${f.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${f.name} ${f.type}\n${f.name} 1`,
          )
          .join('\n')
        const parsed = parsePrometheusText(text)
        for (const f of families) {
          expect(parsed.types[f.name]).toBe(f.type)
          expect(parsed.help[f.name]).toBe(f.help)
        }
        expect(parsed.samples).toHaveLength(families.length)
      }),
    )
  })

  it('ends lines only at \\n: HELP text keeps U+2028, U+2029 and a lone CR', () => {
    // Found by the HELP round trip above: a regex `.` stops at U+2028, which dropped the line.
    const text =
      '# HELP a_total one\u2028two\n# HELP b_total x\u2029y\rz\n# TYPE a_total counter\na_total 1\n'
    const parsed = parsePrometheusText(text)
    expect(parsed.help).toEqual({ a_total: 'one\u2028two', b_total: 'x\u2029y\rz' })
    expect(parsed.types).toEqual({ a_total: 'counter' })
    expect(parsed.samples).toEqual([{ name: 'a_total', labels: {}, value: 1 }])
  })

  it('reads a vLLM-style histogram into cumulative buckets, sum and count per label set', () => {
    const text = [
      '# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.',
      '# TYPE vllm:e2e_request_latency_seconds histogram',
      'vllm:e2e_request_latency_seconds_bucket{le="0.5",model_name="m"} 1',
      'vllm:e2e_request_latency_seconds_bucket{le="1.0",model_name="m"} 3',
      'vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="m"} 4',
      'vllm:e2e_request_latency_seconds_sum{model_name="m"} 3.25',
      'vllm:e2e_request_latency_seconds_count{model_name="m"} 4',
      'vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="other"} 2',
      'vllm:e2e_request_latency_seconds_count{model_name="other"} 2',
    ].join('\n')
    const exposition = parsePrometheusText(text)
    expect(exposition.types['vllm:e2e_request_latency_seconds']).toBe('histogram')
    expect(histogramSeries(exposition, 'vllm:e2e_request_latency_seconds')).toEqual([
      {
        labels: { model_name: 'm' },
        buckets: [
          { le: 0.5, count: 1 },
          { le: 1, count: 3 },
          { le: Number.POSITIVE_INFINITY, count: 4 },
        ],
        sum: 3.25,
        count: 4,
      },
      {
        labels: { model_name: 'other' },
        buckets: [{ le: Number.POSITIVE_INFINITY, count: 2 }],
        sum: 0,
        count: 2,
      },
    ])
  })

  it('skips free comments and blank lines, accepts a trailing comma and CRLF', () => {
    const text = '# just a note\r\n\r\nfoo_total{a="1",} 2\r\nfoo_total{a="2"} 3 1700000000000\r\n'
    const { samples } = parsePrometheusText(text)
    expect(samples).toEqual([
      { name: 'foo_total', labels: { a: '1' }, value: 2 },
      { name: 'foo_total', labels: { a: '2' }, value: 3, timestampMs: 1_700_000_000_000 },
    ])
    expect(sumSamples(samples, 'foo_total')).toBe(5)
    expect(sumSamples(samples, 'bar_total')).toBeUndefined()
  })

  it('names the line and the problem of malformed input', () => {
    expect(() => parsePrometheusText('ok 1\nbad{a="1" 2')).toThrow(
      'Prometheus text line 2: expected "," or "}" after label a',
    )
    expect(() => parsePrometheusText('x{a="\\q"} 1')).toThrow(
      'Prometheus text line 1: bad escape "\\q" in label a',
    )
    expect(() => parsePrometheusText('x one')).toThrow('Prometheus text line 1: bad value "one"')
    expect(() => parsePrometheusText('# TYPE x bogus')).toThrow(
      'Prometheus text line 1: unknown type "bogus" for x',
    )
    expect(() => parsePrometheusText('x{a="1",a="2"} 1')).toThrow('duplicate label a')
  })
})
