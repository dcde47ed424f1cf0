import { describe, expect, it } from 'vitest'
import type { BenchResult } from '../result/result-types.ts'
import { escapeHtml } from './html-escape.ts'
import { buildTimelineHtml } from './timeline-html.ts'

/** Three requests: one queued 0.1 s with gaps of 10, 30 and 60 ms, one plain, one failed. */
function result(overrides: Partial<BenchResult> = {}): BenchResult {
  return {
    date: '20260101-010203',
    endpoint_type: 'openai',
    backend: 'openai',
    label: null,
    model_id: 'org/model',
    tokenizer_id: null,
    num_prompts: 3,
    num_warmups: 0,
    request_rate: 'inf',
    burstiness: 1,
    max_concurrency: 2,
    duration: 0.5,
    completed: 2,
    failed: 1,
    total_input_tokens: 20,
    total_output_tokens: 6,
    request_throughput: 4,
    request_goodput: null,
    output_throughput: 12,
    total_token_throughput: 52,
    input_lens: [10, 10, 0],
    output_lens: [4, 2, 0],
    ttfts: [0.05, 0.04, 0],
    itls: [[0.01, 0.03, 0.06], [0.005], []],
    latencies: [0.15, 0.045, 0],
    start_times: [100.1, 100.0, 100.02],
    queue_times: [0.1, 0, 0],
    generated_texts: ['', '', ''],
    errors: ['', '', 'HTTP 500: </script><b>boom</b>'],
    max_output_tokens_per_s: 10,
    max_concurrent_requests: 2,
    rtfx: 0,
    mean_ttft_ms: 45,
    p99_ttft_ms: 49.9,
    ...overrides,
  }
}

const count = (html: string, needle: string): number => html.split(needle).length - 1

describe('buildTimelineHtml', () => {
  it('draws one bar per request: queue wait, TTFT, decode, and a failed marker', () => {
    const html = buildTimelineHtml(result())
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true)
    expect(count(html, '<text class="req"')).toBe(3)
    expect(count(html, '<rect class="queue"')).toBe(1)
    expect(count(html, '<rect class="ttft"')).toBe(2)
    expect(count(html, '<rect class="decode"')).toBe(2)
    expect(count(html, '<rect class="failed"')).toBe(1)
    // The axis starts at the first arrival (request 0 arrived at 100.0, like request 1).
    expect(html).toContain('time since the first request arrived (s)')
    expect(html).toMatch(/<text class="tick" x="64" y="18">0\.00<\/text>/)
    // Header: key metrics from the result.
    expect(html).toContain('<dt>requests</dt><dd>2 ok · 1 failed</dd>')
    expect(html).toContain('<dt>TTFT mean / p99</dt><dd>45.0 / 49.9 ms</dd>')
    expect(html).toContain('<dt>ITL mean / p99</dt><dd>– / – ms</dd>')
  })

  it('is self-contained: nothing is fetched', () => {
    const html = buildTimelineHtml(result())
    expect(html).not.toMatch(/<script[^>]+src=|<link |https?:\/\/|@import|url\((?!#)/)
  })

  it('highlights ITL gaps at or above each threshold', () => {
    const byDefault = buildTimelineHtml(result())
    // 10 ms and 5 ms are below 25; 30 ms is between 25 and 50; 60 ms is at or above 50.
    expect(count(byDefault, '<rect class="slow"')).toBe(1)
    expect(count(byDefault, '<rect class="very-slow"')).toBe(1)
    expect(byDefault).toContain('<dt>ITL gaps ≥ 25 ms</dt><dd>2 <small>of 4</small></dd>')
    expect(byDefault).toContain('<dt>ITL gaps ≥ 50 ms</dt><dd>1</dd>')
    expect(byDefault).toContain('decode (ITL &lt; 25 ms)')

    const custom = buildTimelineHtml(result(), { itlThresholdsMs: [5, 100] })
    expect(count(custom, '<rect class="slow"')).toBe(4)
    expect(count(custom, '<rect class="very-slow"')).toBe(0)
    expect(custom).toContain('5 ms ≤ ITL &lt; 100 ms')
    // An ITL exactly at a threshold belongs to the higher band, as in Python.
    const edge = buildTimelineHtml(result(), { itlThresholdsMs: [10, 60] })
    expect(count(edge, '<rect class="slow"')).toBe(2)
    expect(count(edge, '<rect class="very-slow"')).toBe(1)
  })

  it('escapes user strings in the page and in the embedded data', () => {
    const label = `</script><img src=x onerror="alert(1)">&`
    const html = buildTimelineHtml(result({ label, model_id: '<m>' }))
    expect(html).toContain(`<h1>${escapeHtml(label)}</h1>`)
    expect(html).toContain('&lt;/script&gt;&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;')
    expect(html).toContain('openai · &lt;m&gt; ·')
    expect(html).not.toContain('<img')
    // The error text travels as JSON in a script element that it cannot close.
    expect(count(html, '</script>')).toBe(2)
    expect(html).toContain('HTTP 500: \\u003c/script\\u003e\\u003cb\\u003eboom\\u003c/b\\u003e')
    const json = /<script type="application\/json" id="timeline-data">(.*?)<\/script>/s.exec(html)![1]!
    expect(JSON.parse(json).rows[2][8]).toBe('HTTP 500: </script><b>boom</b>')
  })

  it('says so when there is nothing to plot', () => {
    const html = buildTimelineHtml(
      result({ start_times: [], queue_times: [], ttfts: [], itls: [], latencies: [], errors: [] }),
    )
    expect(html).toContain('<p>No requests to plot.</p>')
    expect(html).not.toContain('<svg')
  })
})
