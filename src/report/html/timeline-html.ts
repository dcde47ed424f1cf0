/**
 * The `--plot-timeline` page: one horizontal bar per request over the run's time axis (client
 * queue wait, TTFT, decode), with the inter-token gaps at or above the thresholds highlighted.
 * Python draws this with plotly (vllm/benchmarks/timeline_plot.py); ours is one self-contained
 * HTML file (inline SVG, CSS and a few lines of JS for hover, nothing fetched), so it opens
 * offline and in CI artifacts. Pure: `write.ts` puts it on disk.
 */
import type { MultiTurnBenchResult } from '../result/multi-turn.ts'
import type { BenchResult } from '../result/result-types.ts'
import { escapeHtml, jsonForScript } from './html-escape.ts'

/** Python's default `--timeline-itl-thresholds 25,50` (ms). */
export const DEFAULT_TIMELINE_ITL_THRESHOLDS_MS: readonly [number, number] = [25, 50]

export interface TimelineOptions {
  /** Two ascending ITL thresholds in ms: below the first is normal, then slow, then very slow. @default [25, 50] */
  itlThresholdsMs?: readonly [number, number]
  /** Page title. @default the result's label, else its backend */
  title?: string
}

/** Per-request numbers of one bar, seconds from the first arrival. */
interface Bar {
  arrivalS: number
  startS: number
  firstTokenS: number
  endS: number
  inputLen: number
  outputLen: number
  maxItlMs: number
  /** Gaps at or above the first / second threshold: `[startS, endS, level]`. */
  gaps: Array<[number, number, 1 | 2]>
  error: string
}

const COLORS = {
  queue: '#c3c8d1',
  ttft: '#636efa',
  decode: '#3aa655',
  slow: '#ff7f0e',
  verySlow: '#d62728',
  failed: '#d62728',
} as const
const LEFT = 64
const RIGHT = 24
const TOP = 28
const PLOT_WIDTH = 1120

/** A result with a token stream per request: a generation run's, or a multi-turn run's (one bar per turn). */
type StreamedResult = BenchResult | MultiTurnBenchResult

/**
 * Builds the timeline page of a generation (or multi-turn) result. Needs the per-request arrays that every
 * in-memory result holds (`start_times`, `queue_times`, `ttfts`, `itls`, `latencies`, …).
 */
export function buildTimelineHtml(result: StreamedResult, options: TimelineOptions = {}): string {
  const [lowMs, highMs] = options.itlThresholdsMs ?? DEFAULT_TIMELINE_ITL_THRESHOLDS_MS
  const bars = barsOf(result, lowMs, highMs)
  const t1 = Math.max(1e-3, ...bars.map((b) => b.endS))
  const n = bars.length
  const rowH = n <= 40 ? 18 : n <= 150 ? 8 : n <= 600 ? 4 : 2
  const barH = Math.max(1.5, rowH * 0.72)
  const height = TOP + n * rowH + 40
  const width = LEFT + PLOT_WIDTH + RIGHT
  const x = (s: number): number => LEFT + (s / t1) * PLOT_WIDTH
  const w = (a: number, b: number): number => Math.max(0.75, x(b) - x(a))
  const parts: string[] = []
  for (const tick of ticks(t1)) {
    const tx = r(x(tick))
    parts.push(
      `<line class="grid" x1="${tx}" x2="${tx}" y1="${TOP - 4}" y2="${TOP + n * rowH}"/>`,
      `<text class="tick" x="${tx}" y="${TOP - 10}">${formatSeconds(tick, t1)}</text>`,
      `<text class="tick" x="${tx}" y="${TOP + n * rowH + 16}">${formatSeconds(tick, t1)}</text>`,
    )
  }
  const labelEvery = Math.ceil(12 / rowH)
  bars.forEach((b, i) => {
    const y = TOP + i * rowH + (rowH - barH) / 2
    const rect = (cls: string, a: number, e: number, minWidth = 0): string =>
      `<rect class="${cls}" x="${r(x(a))}" y="${r(y)}" width="${r(Math.max(minWidth, w(a, e)))}" height="${r(barH)}"/>`
    if (i % labelEvery === 0)
      parts.push(`<text class="req" x="${LEFT - 8}" y="${r(y + barH / 2 + 3.5)}">Req ${i}</text>`)
    if (b.startS > b.arrivalS) parts.push(rect('queue', b.arrivalS, b.startS))
    if (b.error !== '') {
      // A failed request often ends at once: keep it wide enough to see.
      parts.push(rect('failed', b.startS, b.endS, 8))
      return
    }
    parts.push(rect('ttft', b.startS, b.firstTokenS))
    if (b.endS > b.firstTokenS) parts.push(rect('decode', b.firstTokenS, b.endS))
    for (const [a, e, level] of b.gaps) parts.push(rect(level === 2 ? 'very-slow' : 'slow', a, e))
  })
  const svg =
    `<svg id="plot" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="request timeline">` +
    `<defs><pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="4" height="4" fill="#fff"/><rect width="2" height="4" fill="${COLORS.failed}"/></pattern></defs>` +
    `<rect id="hover" x="${LEFT}" width="${PLOT_WIDTH}" height="${rowH}" y="-100"/>${parts.join('')}` +
    `<text class="axis" x="${LEFT + PLOT_WIDTH / 2}" y="${height - 6}">time since the first request arrived (s)</text></svg>`
  const slowGaps = bars.reduce((k, b) => k + b.gaps.length, 0)
  const verySlowGaps = bars.reduce((k, b) => k + b.gaps.filter((g) => g[2] === 2).length, 0)
  const totalGaps = (result.itls ?? []).reduce((k, gaps) => k + (gaps?.length ?? 0), 0)
  const title = options.title ?? result.label ?? result.backend
  const data = {
    lowMs,
    rowH,
    top: TOP,
    rows: bars.map((b) => [
      r3(b.arrivalS),
      r3(b.startS),
      r3(b.firstTokenS),
      r3(b.endS),
      b.inputLen,
      b.outputLen,
      r3(b.maxItlMs),
      b.gaps.length,
      b.error,
    ]),
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · servebench timeline</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p class="sub">${escapeHtml(`${result.backend} · ${result.model_id} · ${result.date} · rate ${result.request_rate} req/s · max concurrency ${result.max_concurrency ?? 'none'}`)}</p>
<dl class="metrics">${metricCells(result).join('')}
<div><dt>ITL gaps ≥ ${lowMs} ms</dt><dd>${slowGaps} <small>of ${totalGaps}</small></dd></div>
<div><dt>ITL gaps ≥ ${highMs} ms</dt><dd>${verySlowGaps}</dd></div></dl>
<ul class="legend">
<li><i style="background:${COLORS.queue}"></i>client queue wait</li>
<li><i style="background:${COLORS.ttft}"></i>TTFT</li>
<li><i style="background:${COLORS.decode}"></i>decode (ITL &lt; ${lowMs} ms)</li>
<li><i style="background:${COLORS.slow}"></i>${lowMs} ms ≤ ITL &lt; ${highMs} ms</li>
<li><i style="background:${COLORS.verySlow}"></i>ITL ≥ ${highMs} ms</li>
<li><i class="failed-key"></i>failed request</li>
</ul>
</header>
<main>${n === 0 ? '<p>No requests to plot.</p>' : svg}</main>
<div id="tip" hidden></div>
<script type="application/json" id="timeline-data">${jsonForScript(data)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`
}

function barsOf(result: StreamedResult, lowMs: number, highMs: number): Bar[] {
  const starts = result.start_times ?? []
  const n = starts.length
  let t0 = Number.POSITIVE_INFINITY
  for (let i = 0; i < n; i++) t0 = Math.min(t0, starts[i]! - (result.queue_times?.[i] ?? 0))
  const bars: Bar[] = []
  for (let i = 0; i < n; i++) {
    const startS = starts[i]! - t0
    const ttftS = result.ttfts?.[i] ?? 0
    const latencyS = result.latencies?.[i] ?? 0
    const itls = result.itls?.[i] ?? []
    const gaps: Bar['gaps'] = []
    let at = startS + ttftS
    let maxItlMs = 0
    for (const gapS of itls) {
      const ms = gapS * 1000
      maxItlMs = Math.max(maxItlMs, ms)
      if (ms >= lowMs) gaps.push([at, at + gapS, ms >= highMs ? 2 : 1])
      at += gapS
    }
    bars.push({
      arrivalS: startS - (result.queue_times?.[i] ?? 0),
      startS,
      firstTokenS: startS + ttftS,
      endS: startS + latencyS,
      inputLen: result.input_lens?.[i] ?? 0,
      outputLen: result.output_lens?.[i] ?? 0,
      maxItlMs,
      gaps,
      error: result.errors?.[i] ?? '',
    })
  }
  return bars
}

function metricCells(result: StreamedResult): string[] {
  const num = (key: string, digits: number, unit = ''): string => {
    const v = result[key]
    return typeof v === 'number' && Number.isFinite(v) ? `${v.toFixed(digits)}${unit}` : '–'
  }
  const cells: Array<[string, string]> = [
    ['requests', `${result.completed} ok${result.failed > 0 ? ` · ${result.failed} failed` : ''}`],
    ['duration', num('duration', 2, ' s')],
    ['request throughput', num('request_throughput', 2, ' req/s')],
    ['output throughput', num('output_throughput', 1, ' tok/s')],
    ['TTFT mean / p99', `${num('mean_ttft_ms', 1)} / ${num('p99_ttft_ms', 1)} ms`],
    ['TPOT mean', num('mean_tpot_ms', 2, ' ms')],
    ['ITL mean / p99', `${num('mean_itl_ms', 2)} / ${num('p99_itl_ms', 2)} ms`],
    ['peak concurrency', num('max_concurrent_requests', 0)],
  ]
  return cells.map(([k, v]) => `\n<div><dt>${k}</dt><dd>${escapeHtml(v)}</dd></div>`)
}

/** About eight round ticks from 0 to `endS`. */
function ticks(endS: number): number[] {
  const raw = endS / 8
  const mag = 10 ** Math.floor(Math.log10(raw))
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag
  const out: number[] = []
  for (let t = 0; t <= endS + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)))
  return out
}

function formatSeconds(s: number, endS: number): string {
  const digits = endS < 0.1 ? 3 : endS < 1 ? 2 : endS < 10 ? 1 : 0
  return s.toFixed(digits)
}

const r = (v: number): number => Math.round(v * 100) / 100
const r3 = (v: number): number => Math.round(v * 1000) / 1000

const STYLE = `
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2430;background:#fafbfc}
header{padding:18px 28px 8px;background:#fff;border-bottom:1px solid #e3e6eb}
h1{margin:0;font-size:20px;font-weight:600}
.sub{margin:2px 0 12px;color:#5c6370;font-size:13px}
.metrics{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 12px}
.metrics div{background:#f3f5f8;border:1px solid #e3e6eb;border-radius:6px;padding:6px 12px;min-width:110px}
.metrics dt{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:#6b7280}
.metrics dd{margin:0;font-size:16px;font-weight:600;font-variant-numeric:tabular-nums}
.metrics small{font-weight:400;color:#6b7280}
.legend{display:flex;flex-wrap:wrap;gap:16px;list-style:none;margin:0;padding:0;font-size:13px;color:#394150}
.legend i{display:inline-block;width:14px;height:10px;border-radius:2px;margin-right:6px;vertical-align:-1px}
.legend .failed-key{background:repeating-linear-gradient(45deg,#d62728 0 2px,#fff 2px 4px);border:1px solid #d62728}
main{padding:12px 28px 28px}
svg{width:100%;height:auto;background:#fff;border:1px solid #e3e6eb;border-radius:6px}
.grid{stroke:#eceff3;stroke-width:1}
.tick{font-size:11px;fill:#6b7280;text-anchor:middle}
.req{font-size:10px;fill:#6b7280;text-anchor:end}
.axis{font-size:12px;fill:#394150;text-anchor:middle}
.queue{fill:${COLORS.queue}}.ttft{fill:${COLORS.ttft}}.decode{fill:${COLORS.decode}}
.slow{fill:${COLORS.slow}}.very-slow{fill:${COLORS.verySlow}}
.failed{fill:url(#hatch);stroke:${COLORS.failed};stroke-width:.75}
#hover{fill:#1f2430;opacity:.07}
#tip{position:fixed;pointer-events:none;background:#1f2430;color:#fff;font-size:12px;line-height:1.5;padding:8px 10px;border-radius:6px;box-shadow:0 4px 14px rgba(0,0,0,.2);max-width:420px;white-space:pre-line;font-variant-numeric:tabular-nums}
`

const SCRIPT = `(function(){
var d=JSON.parse(document.getElementById('timeline-data').textContent);
var svg=document.getElementById('plot'),tip=document.getElementById('tip'),hv=document.getElementById('hover');
if(!svg)return;
function ms(s){return (s*1000).toFixed(1)+' ms'}
svg.addEventListener('mousemove',function(e){
var b=svg.getBoundingClientRect(),vb=svg.viewBox.baseVal,y=(e.clientY-b.top)*vb.height/b.height;
var i=Math.floor((y-d.top)/d.rowH),q=d.rows[i];
if(!q){tip.hidden=true;hv.setAttribute('y',-100);return}
hv.setAttribute('y',d.top+i*d.rowH);
var t='Req '+i+'\\nstart '+q[1].toFixed(3)+' s, end '+q[3].toFixed(3)+' s'+(q[1]>q[0]?'\\nqueue wait '+ms(q[1]-q[0]):'');
if(q[8]){t+='\\nfailed: '+q[8]}else{t+='\\nTTFT '+ms(q[2]-q[1])+' · decode '+ms(q[3]-q[2])+' · E2EL '+ms(q[3]-q[1])+'\\nprompt '+q[4]+' tok · output '+q[5]+' tok\\nmax ITL '+q[6].toFixed(1)+' ms · gaps ≥ '+d.lowMs+' ms: '+q[7]}
tip.textContent=t;tip.hidden=false;
var x=e.clientX+14,yy=e.clientY+14;if(x+300>innerWidth)x=e.clientX-300;if(yy+110>innerHeight)yy=e.clientY-110;
tip.style.left=x+'px';tip.style.top=yy+'px'});
svg.addEventListener('mouseleave',function(){tip.hidden=true;hv.setAttribute('y',-100)});
})();`
