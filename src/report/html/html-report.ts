/**
 * The HTML run report: one self-contained file (uPlot's script and style inlined, the chart data
 * as JSON, a Content-Security-Policy that allows no network request) built from
 * `report-sections.ts`. Pure: the caller passes the chart library's text (`readChartLibrary` in
 * `write.ts`) and writes the page.
 */

import { escapeHtml, jsonForScript } from './html-escape.ts'
import type { ChartSpec } from './report-charts.ts'
import {
  type ReportContent,
  type ReportSection,
  type ReportTable,
  reportSections,
} from './report-sections.ts'

/** The chart library's files, inlined into the page. */
export interface ChartLibrary {
  /** `uplot/dist/uPlot.iife.min.js`. */
  js: string
  /** `uplot/dist/uPlot.min.css`. */
  css: string
}

/** The options of {@link buildHtmlReport}. */
export interface HtmlReportOptions {
  /** The page title. @default 'servebench report' */
  title?: string
  /** When the report was made (ISO 8601), shown under the title. */
  generatedAt?: string
  library: ChartLibrary
}

/** The report page. Every chart draws into a `<div class="chart">`; the page counts them when done. */
export function buildHtmlReport(content: ReportContent, options: HtmlReportOptions): string {
  const sections = reportSections(content)
  const charts = sections.flatMap((s) => s.charts)
  const title = options.title ?? 'servebench report'
  const csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${options.library.css}</style>
<style>${PAGE_CSS}</style>
</head>
<body>
<header><h1>${escapeHtml(title)}</h1>${options.generatedAt ? `<p class="meta">Generated ${escapeHtml(options.generatedAt)} by servebench</p>` : ''}
<nav>${sections.map((s) => `<a href="#${s.id}">${escapeHtml(s.title)}</a>`).join(' · ')}</nav></header>
${sections.map(renderSection).join('\n')}
<script type="application/json" id="servebench-charts">${jsonForScript(charts)}</script>
<script>${options.library.js}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`
}

function renderSection(s: ReportSection): string {
  return `<section id="${s.id}">
<h2>${escapeHtml(s.title)}</h2>
${s.notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join('\n')}
<div class="charts">${s.charts.map(renderChartSlot).join('')}</div>
${s.tables.map(renderTable).join('\n')}
</section>`
}

function renderChartSlot(c: ChartSpec): string {
  return `<figure><div class="chart" id="${c.id}" data-title="${escapeHtml(c.title)}"></div></figure>`
}

function renderTable(t: ReportTable): string {
  const table = `<table><thead><tr>${t.head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${t.rows
    .map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`
  return t.collapsed
    ? `<details><summary>${escapeHtml(t.title)}</summary>${table}</details>`
    : `<h3>${escapeHtml(t.title)}</h3>${table}`
}

const PAGE_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 1280px; padding: 0 16px 32px; color: #222; }
header { border-bottom: 1px solid #ddd; margin-bottom: 8px; }
h1 { font-size: 22px; margin: 16px 0 4px; } h2 { font-size: 18px; margin: 24px 0 8px; } h3 { font-size: 15px; }
.meta, .note { color: #666; }
nav a { color: #1f5fa8; text-decoration: none; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(600px, 1fr)); gap: 12px; }
figure { margin: 0; border: 1px solid #e4e4e4; border-radius: 4px; padding: 4px; }
.chart { min-height: 280px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; }
th { background: #f5f5f5; }
details { margin: 6px 0; }
`

// The page's own script: one uPlot per chart spec, bound marks and the shaded window drawn on its
// canvas; when every chart is drawn, <html data-charts="drawn/total"> (read by the browser test).
// Each chart's uPlot is kept in window.servebenchCharts by id, with what the script drew itself
// (`servebench.xTicks`, `servebench.labels`: text and its extent in CSS pixels), for the console
// and the browser test.
const PAGE_SCRIPT = `(function () {
  var specs = JSON.parse(document.getElementById('servebench-charts').textContent);
  var charts = window.servebenchCharts = {};
  var drawn = 0;
  specs.forEach(function (spec) {
    try { charts[spec.id] = draw(spec); drawn++; } catch (e) { console.error('servebench: chart ' + spec.id + ': ' + e); }
  });
  document.documentElement.setAttribute('data-charts', drawn + '/' + specs.length);

  function pathsOf(kind, group) {
    if (group) return groupedBars(group);
    if (kind === 'bars') return uPlot.paths.bars({ size: [0.9, Infinity] });
    if (kind === 'step') return uPlot.paths.stepped({ align: 1 });
    if (kind === 'points') return function () { return null; };
    return uPlot.paths.linear();
  }

  // Bar index of count at each x of a categorical axis, side by side within 0.8 of a category.
  function groupedBars(g) {
    var w = 0.8 / g.count;
    return uPlot.paths.bars({ disp: {
      x0: { unit: 1, values: function (u) { return u.data[0].map(function (x) { return x - 0.4 + g.index * w; }); } },
      size: { unit: 1, values: function (u) { return u.data[0].map(function () { return w; }); } }
    } });
  }

  // A label inside the plot: right of x when it fits, else left of it, else cut to the width.
  function placeLabel(u, ctx, text, x, y, state) {
    var left = u.bbox.left + 2, right = u.bbox.left + u.bbox.width - 2;
    while (text.length > 4 && ctx.measureText(text).width > right - left) text = text.slice(0, -2) + '\u2026';
    var w = ctx.measureText(text).width;
    var tx = x + 4 + w <= right ? x + 4 : x - 4 - w >= left ? x - 4 - w : Math.max(left, right - w);
    // uPlot leaves the alignment of the last axis it drew on the context.
    ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic';
    ctx.fillText(text, tx, y);
    var r = uPlot.pxRatio;
    state.labels.push({ text: text, left: tx / r, right: (tx + w) / r, y: y / r, width: u.width });
  }

  function draw(spec) {
    var el = document.getElementById(spec.id);
    var state = { labels: [], xTicks: [] };
    var hasY2 = spec.series.some(function (s) { return s.scale === 'y2'; });
    var series = [{ label: spec.xLabel }].concat(spec.series.map(function (s) {
      var kind = s.kind || spec.kind, bars = kind === 'bars' || !!s.barGroup;
      return {
        label: s.label, stroke: s.color, width: bars ? 0 : (s.width || 1.5), scale: s.scale || 'y',
        fill: bars ? s.color + '99' : undefined, paths: pathsOf(kind, s.barGroup), spanGaps: kind !== 'points',
        points: { show: kind === 'points' || !!s.markers, size: s.markers ? 6 : 4, fill: s.color, stroke: s.color }
      };
    }));
    var xAxis = { label: spec.xLabel };
    if (spec.xTicks) {
      xAxis.values = function (u, splits) {
        var ticks = splits.map(function (v) { return Number.isInteger(v) && spec.xTicks[v] !== undefined ? spec.xTicks[v] : ''; });
        state.xTicks = ticks.filter(function (t) { return t !== ''; });
        return ticks;
      };
      // Every category its own tick while they fit; uPlot's spacing otherwise.
      if (spec.xTicks.length <= 12) xAxis.splits = function () { return spec.xTicks.map(function (_, i) { return i; }); };
    }
    var axes = [xAxis, { label: spec.yLabel, scale: 'y' }];
    if (hasY2) axes.push({ label: spec.y2Label || '', scale: 'y2', side: 1, grid: { show: false } });
    var scales = { x: { time: false } };
    // Categories sit at x = 0, 1, …, each in the middle of its own slot (also when there is one).
    if (spec.xTicks) scales.x.range = function () { return [-0.5, spec.xTicks.length - 0.5]; };
    // Bounds drawn across y stay inside the range, as x bounds do below.
    var yMarks = (spec.marks || []).filter(function (m) { return m.axis === 'y'; }).map(function (m) { return m.value; });
    ['y', 'y2'].forEach(function (key) {
      if (!spec.yFromZero && (key === 'y2' || yMarks.length === 0)) return;
      scales[key] = { range: function (u, min, max) {
        var lo = spec.yFromZero ? 0 : min, hi = max;
        if (key === 'y') yMarks.forEach(function (v) { lo = Math.min(lo, v); hi = Math.max(hi, v); });
        if (lo == null || hi == null) return [0, 1];
        return [lo, hi > lo ? hi + (hi - lo) * 0.08 : lo + 1];
      } };
    });
    var opts = {
      title: spec.title, width: Math.max(320, (el.clientWidth || 600) - 8), height: 260,
      scales: scales, axes: axes, series: series, legend: { live: false },
      hooks: {
        drawClear: [function (u) {
          if (!spec.band) return;
          var ctx = u.ctx, x0 = u.valToPos(spec.band.from, 'x', true), x1 = u.valToPos(spec.band.to, 'x', true);
          ctx.save(); ctx.fillStyle = 'rgba(44, 160, 44, 0.12)';
          ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
          ctx.fillStyle = '#2ca02c'; ctx.font = 11 * uPlot.pxRatio + 'px sans-serif';
          ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic'; ctx.fillText(spec.band.label, x0 + 4, u.bbox.top + 12);
          ctx.restore();
        }],
        draw: [function (u) {
          state.labels = [];
          var line = 13 * uPlot.pxRatio;
          (spec.marks || []).forEach(function (m, i) {
            var ctx = u.ctx; ctx.save(); ctx.strokeStyle = m.color; ctx.fillStyle = m.color;
            ctx.setLineDash([6, 4]); ctx.lineWidth = 1.5; ctx.font = 11 * uPlot.pxRatio + 'px sans-serif'; ctx.beginPath();
            if (m.axis === 'x') {
              var x = u.valToPos(m.value, 'x', true);
              ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
              placeLabel(u, ctx, m.label, x, u.bbox.top + line + line * i, state);
            } else {
              var y = u.valToPos(m.value, 'y', true);
              ctx.moveTo(u.bbox.left, y); ctx.lineTo(u.bbox.left + u.bbox.width, y); ctx.stroke();
              placeLabel(u, ctx, m.label, u.bbox.left, y - 4 < u.bbox.top + line ? y + line : y - 4, state);
            }
            ctx.restore();
          });
        }]
      }
    };
    // Keep a bound inside the x range, so its line is drawn even when every request is far below it.
    var xs = spec.x.slice();
    var lo = Math.min.apply(null, xs), hi = Math.max.apply(null, xs);
    (spec.marks || []).forEach(function (m) { if (m.axis === 'x') { lo = Math.min(lo, m.value); hi = Math.max(hi, m.value); } });
    if (!spec.xTicks && (spec.marks || []).some(function (m) { return m.axis === 'x'; })) scales.x.range = function () { return [lo, hi + (hi - lo) * 0.02]; };
    var u = new uPlot(opts, [spec.x].concat(spec.series.map(function (s) { return s.values; })), el);
    u.servebench = state;
    return u;
  }
})();
`
