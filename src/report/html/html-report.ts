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
const PAGE_SCRIPT = `(function () {
  var specs = JSON.parse(document.getElementById('servebench-charts').textContent);
  var drawn = 0;
  specs.forEach(function (spec) {
    try { draw(spec); drawn++; } catch (e) { console.error('servebench: chart ' + spec.id + ': ' + e); }
  });
  document.documentElement.setAttribute('data-charts', drawn + '/' + specs.length);

  function pathsOf(kind) {
    if (kind === 'bars') return uPlot.paths.bars({ size: [0.9, Infinity] });
    if (kind === 'step') return uPlot.paths.stepped({ align: 1 });
    if (kind === 'points') return function () { return null; };
    return uPlot.paths.linear();
  }

  function draw(spec) {
    var el = document.getElementById(spec.id);
    var hasY2 = spec.series.some(function (s) { return s.scale === 'y2'; });
    var series = [{ label: spec.xLabel }].concat(spec.series.map(function (s) {
      var kind = s.kind || spec.kind;
      return {
        label: s.label, stroke: s.color, width: kind === 'bars' ? 0 : 1.5, scale: s.scale || 'y',
        fill: kind === 'bars' ? s.color + '99' : undefined, paths: pathsOf(kind), spanGaps: kind !== 'points',
        points: { show: kind === 'points', size: 4, fill: s.color, stroke: s.color }
      };
    }));
    var axes = [
      { label: spec.xLabel, values: spec.xTicks ? function (u, splits) {
          return splits.map(function (v) { return Number.isInteger(v) && spec.xTicks[v] !== undefined ? spec.xTicks[v] : ''; });
        } : undefined },
      { label: spec.yLabel, scale: 'y' }
    ];
    if (hasY2) axes.push({ label: spec.y2Label || '', scale: 'y2', side: 1, grid: { show: false } });
    var scales = { x: { time: false } };
    if (spec.xTicks) scales.x.range = function (u, min, max) { return [min - 0.5, max + 0.5]; };
    var opts = {
      title: spec.title, width: Math.max(320, (el.clientWidth || 600) - 8), height: 260,
      scales: scales, axes: axes, series: series, legend: { live: false },
      hooks: {
        drawClear: [function (u) {
          if (!spec.band) return;
          var ctx = u.ctx, x0 = u.valToPos(spec.band.from, 'x', true), x1 = u.valToPos(spec.band.to, 'x', true);
          ctx.save(); ctx.fillStyle = 'rgba(44, 160, 44, 0.12)';
          ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
          ctx.fillStyle = '#2ca02c'; ctx.font = '11px sans-serif'; ctx.fillText(spec.band.label, x0 + 4, u.bbox.top + 12);
          ctx.restore();
        }],
        draw: [function (u) {
          (spec.marks || []).forEach(function (m, i) {
            var ctx = u.ctx; ctx.save(); ctx.strokeStyle = m.color; ctx.fillStyle = m.color;
            ctx.setLineDash([6, 4]); ctx.lineWidth = 1.5; ctx.font = '11px sans-serif'; ctx.beginPath();
            if (m.axis === 'x') {
              var x = u.valToPos(m.value, 'x', true);
              ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
              ctx.fillText(m.label, Math.min(x + 4, u.bbox.left + u.bbox.width - 160), u.bbox.top + 14 + 13 * i);
            } else {
              var y = u.valToPos(m.value, 'y', true);
              ctx.moveTo(u.bbox.left, y); ctx.lineTo(u.bbox.left + u.bbox.width, y); ctx.stroke();
              ctx.fillText(m.label, u.bbox.left + 4, y - 4);
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
    if (!spec.xTicks && (spec.marks || []).length > 0) scales.x.range = function () { return [lo, hi + (hi - lo) * 0.02]; };
    new uPlot(opts, [spec.x].concat(spec.series.map(function (s) { return s.values; })), el);
  }
})();
`
