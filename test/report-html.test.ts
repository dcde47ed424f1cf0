import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appendHistory } from '../src/report/files/write.ts'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { formatHistoryLines, historyEntries } from '../src/report/summary/history.ts'
import type { RunSummary } from '../src/report/summary/run-summary.ts'
import { type SimServer, startSimulator } from '../src/sim/server.ts'
import { Browser, CHROMIUM, hasChromium } from './chromium.ts'
import { ROOT, runCli } from './helpers.ts'
import { axes, colouredPixels, drawn, drawnLabels, type PageLabel, seriesPixels } from './report-page.ts'

// One simulator for the file: 4 sequences at most, so a concurrency of 16 leaves 12 waiting.
let sim: SimServer
let dir: string
let points: Array<{ file: string; result: Record<string, unknown> }>
// The combined sweep file of the same run (its points in the order run: 2, 16, 8).
let combined: string
// Two results saved as Python's --save-result saves them: no per-request arrays.
let plain: string[]

beforeAll(async () => {
  sim = await startSimulator({ maxNumSeqs: 4, decodeBaseMs: 10 })
  dir = await mkdtemp(join(tmpdir(), 'servebench-report-'))
  const run = await runCli([
    'serve',
    ...['--base-url', sim.url, '--tokenizer', 'cl100k_base'],
    ...['--random-input-len', '32', '--random-output-len', '12', '--num-prompts', '16'],
    ...['--sweep-max-concurrency', '2,16,8', '--server-metrics-interval', '0.05'],
    ...[
      '--save-result',
      '--save-detailed',
      '--result-dir',
      join(dir, 'runs'),
      '--label',
      'q',
      '--disable-tqdm',
    ],
  ])
  expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
  expect(run.code).toBe(0)
  const files = (await readdir(join(dir, 'runs'))).filter((f) => /-concurrency\d+-/.test(f))
  points = await Promise.all(
    files.map(async (f) => ({
      file: join(dir, 'runs', f),
      result: JSON.parse(await readFile(join(dir, 'runs', f), 'utf8')),
    })),
  )
  points.sort((a, b) => Number(a.result.max_concurrency) - Number(b.result.max_concurrency))
  combined = join(dir, 'runs', (await readdir(join(dir, 'runs'))).find((f) => f.includes('-sweep-'))!)
  const plainRun = await runCli([
    'serve',
    ...['--base-url', sim.url, '--tokenizer', 'cl100k_base'],
    ...['--random-input-len', '32', '--random-output-len', '12', '--num-prompts', '16'],
    ...['--sweep-max-concurrency', '2,16', '--metric-percentiles', '50,90,99'],
    ...['--percentile-metrics', 'ttft,tpot,itl,e2el', '--save-result', '--result-dir', join(dir, 'plain')],
    '--disable-tqdm',
  ])
  expect(plainRun.code, plainRun.stderr).toBe(0)
  plain = (await readdir(join(dir, 'plain')))
    .filter((f) => /-concurrency\d+-/.test(f))
    .sort((a, b) => Number(/concurrency(\d+)/.exec(a)![1]) - Number(/concurrency(\d+)/.exec(b)![1]))
    .map((f) => join(dir, 'plain', f))
}, 120_000)

afterAll(async () => {
  await sim?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('server metrics scraped during a run', () => {
  it('keep the queue that builds up under server_metrics, on the clock of the requests', () => {
    expect(points.map((p) => p.result.max_concurrency)).toEqual([2, 8, 16])
    const busiest = points[2]!.result
    expect(validateResultFile(busiest)).toEqual({ valid: true })
    const server = busiest.server_metrics as {
      source: string
      interval_s: number
      t_s: number[]
      series: Record<string, number[]>
    }
    expect(server.source).toBe(`${sim.url}/metrics`)
    expect(server.interval_s).toBe(0.05)
    expect(server.t_s.length).toBeGreaterThanOrEqual(2)
    for (const name of [
      'vllm:num_requests_running',
      'vllm:num_requests_waiting',
      'vllm:kv_cache_usage_perc',
      'vllm:num_preemptions_total',
    ])
      expect(server.series[name], name).toHaveLength(server.t_s.length)
    // 16 requests in flight on 4 sequences: at least one scrape saw a queue, none more than 4 running.
    expect(Math.max(...server.series['vllm:num_requests_running']!)).toBeLessThanOrEqual(4)
    expect(Math.max(...server.series['vllm:num_requests_waiting']!)).toBeGreaterThan(0)
    const starts = busiest.start_times as number[]
    const ends = starts.map((s, i) => s + (busiest.latencies as number[])[i]!)
    expect(server.t_s[0]!).toBeLessThanOrEqual(Math.max(...ends))
    expect(server.t_s.at(-1)!).toBeGreaterThanOrEqual(Math.min(...starts))
    // At a concurrency of 2 the queue stays shorter than at 16.
    const waiting = (p: (typeof points)[0]): number =>
      Math.max(
        ...(p.result.server_metrics as { series: Record<string, number[]> }).series[
          'vllm:num_requests_waiting'
        ]!,
      )
    expect(waiting(points[0]!)).toBeLessThan(waiting(points[2]!))
  })
})

describe('servebench report and compare --markdown', () => {
  it('write an HTML report that Chromium draws whole, offline, and a PR table of two results', async ({
    skip,
  }) => {
    const [c2, c8, c16] = points as [(typeof points)[0], (typeof points)[0], (typeof points)[0]]
    // The history after three runs: one line per run of one benchmark, three commits.
    const history = join(dir, 'history.jsonl')
    for (const [i, p] of points.entries()) {
      const summary: RunSummary = {
        date: `2026-12-0${i + 1}T12:00:00.000Z`,
        reason: 'passed',
        benchmarks: [
          {
            file: 'chat.bench.ts',
            name: 'queue',
            state: 'passed',
            verdict: 'pass',
            durationMs: 1000,
            fingerprint: 'f00d',
            resultFile: null,
            metrics: {
              completed: p.result.completed as number,
              failed: 0,
              duration_s: p.result.duration as number,
              request_throughput: p.result.request_throughput as number,
              output_throughput: p.result.output_throughput as number,
              mean_ttft_ms: p.result.mean_ttft_ms as number,
              p99_ttft_ms: p.result.p99_ttft_ms as number,
              mean_tpot_ms: p.result.mean_tpot_ms as number,
              mean_itl_ms: p.result.mean_itl_ms as number,
            },
            verdicts: [],
            errors: [],
          },
        ],
      }
      await appendHistory(
        history,
        formatHistoryLines(historyEntries(summary, { commit: `c0mm1t${i}abcdef` })),
      )
    }
    const lines = (await readFile(history, 'utf8')).trimEnd().split('\n')
    expect(lines.map((l) => JSON.parse(l).commit)).toEqual([
      'c0mm1t0abcdef',
      'c0mm1t1abcdef',
      'c0mm1t2abcdef',
    ])
    // A summary whose SLO check names the busiest point's result file: its bound is drawn.
    const summaryFile = join(dir, 'summary.json')
    const p99 = c16.result.p99_ttft_ms as number
    await writeFile(
      summaryFile,
      JSON.stringify({
        date: '2026-12-01T12:00:00.000Z',
        reason: 'failed',
        benchmarks: [
          {
            file: 'chat.bench.ts',
            name: 'queue',
            resultFile: c16.file.split('/').at(-1),
            verdicts: [
              {
                matcher: 'toMeetSLO',
                pass: false,
                verdict: 'fail',
                summary: 'SLO missed',
                checks: [
                  {
                    metric: 'p99 TTFT',
                    actual: p99,
                    limit: p99 / 2,
                    unit: 'ms',
                    pass: false,
                    verdict: 'fail',
                  },
                ],
              },
            ],
          },
        ],
      }),
    )
    const sweepHtml = join(dir, 'sweep.html')
    const compareHtml = join(dir, 'compare.html')
    const combinedHtml = join(dir, 'combined.html')
    const plainHtml = join(dir, 'plain.html')
    const [sweep, compare, markdown, bad, combinedReport, plainReport] = await Promise.all([
      runCli([
        'report',
        // In the order a shell's glob gives them (16 before 8): the report orders them by concurrency.
        c16.file,
        c2.file,
        c8.file,
        '-o',
        sweepHtml,
        '--history',
        history,
        '--title',
        'Queue sweep',
      ]),
      runCli([
        'report',
        c2.file,
        c16.file,
        '--output',
        compareHtml,
        '--summary',
        summaryFile,
        '--csv',
        join(dir, 'csv'),
      ]),
      runCli(['compare', c2.file, c16.file, '--markdown']),
      runCli(['report', '--bogus', '--history', join(dir, 'none.jsonl'), '-o']),
      runCli(['report', combined, '-o', combinedHtml]),
      runCli(['report', ...plain, '-o', plainHtml]),
    ])
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'servebench: Invalid configuration (3 issues):\n  - --bogus is not a servebench report flag; valid: --output, -o, --title, --summary, --history, --csv, --help\n  - --output needs a value\n  - report needs at least one result file (got 0); see servebench report --help\n',
    ])
    expect(
      [sweep.code, compare.code, markdown.code, combinedReport.code, plainReport.code],
      `${sweep.stderr}${compare.stderr}${markdown.stderr}${combinedReport.stderr}${plainReport.stderr}`,
    ).toEqual([0, 0, 0, 0, 0])
    // The combined sweep file: the sweep, then a section per point in the order of the value swept,
    // each with its summary table (not an empty one asking for --save-detailed).
    const combinedPage = await readFile(combinedHtml, 'utf8')
    const stem = combined
      .split('/')
      .at(-1)!
      .replace(/-\d{8}-\d{6}\.json$/, '')
    expect([...combinedPage.matchAll(/<h2>(.*?)<\/h2>/g)].map((m) => m[1])).toEqual([
      `Sweep: ${stem}`,
      `${stem} › concurrency=2`,
      `${stem} › concurrency=8`,
      `${stem} › concurrency=16`,
    ])
    expect(combinedPage).not.toContain('--save-detailed): distributions and time series are left out')
    expect(combinedPage).toContain(`<tr><td>completed</td><td>16</td></tr>`)
    expect(sweep.stdout).toBe(`servebench: report written to ${sweepHtml}\n`)
    expect((await readdir(join(dir, 'csv'))).sort()).toEqual(
      [
        `${c16.file
          .split('/')
          .at(-1)!
          .replace(/\.json$/, '')}.requests.csv`,
        `${c2.file
          .split('/')
          .at(-1)!
          .replace(/\.json$/, '')}.requests.csv`,
        'summary.csv',
      ].sort(),
    )
    // The PR table: base c2, head c16, a bootstrap interval on each latency row (both files are detailed).
    expect(markdown.stdout).toMatch(/^<!-- servebench:pr-comment -->\n## servebench compare: /)
    expect(markdown.stdout).toContain('| Metric | Base | Head | Change | Interval | Verdict |')
    expect(markdown.stdout, markdown.stdout).toMatch(
      /^\| mean_ttft_ms \| [\d.]+ ms \| [\d.]+ ms \| \+\d+\.\d% \| [+-]\d+\.\d% … [+-]\d+\.\d% \| ❌ fail \|$/m,
    )

    const page = await readFile(compareHtml, 'utf8')
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`)
    expect(page).not.toMatch(/<(script|link|img)[^>]+(src|href)=/)

    if (!hasChromium()) {
      if (process.env.CI)
        throw new Error(`Chromium is missing at ${CHROMIUM}: .ci/run installs Debian's chromium package`)
      // Locally only: .ci/run installs it on CI. The files above were checked; the drawing was not.
      return skip(`Chromium is missing at ${CHROMIUM} (apt-get install chromium): the page was not drawn`)
    }
    const browser = await Browser.launch()
    try {
      const shots = process.env.SERVEBENCH_SCREENSHOTS
      for (const [file, expected] of [
        [sweepHtml, ['sweep-latency', 'b2-server-queue', 'b2-server-cache', 'b0-ttft-cdf', 'trend-0']],
        [
          compareHtml,
          ['cmp-ttft', 'b1-ttft-cdf', 'b1-ttft-hist', 'b1-throughput', 'b1-inflight', 'b1-server-queue'],
        ],
        [combinedHtml, ['sweep-latency', 'b0-ttft-percentiles', 'b2-itl-percentiles', 'b2-server-queue']],
        [
          plainHtml,
          [
            'cmp-ttft-percentiles',
            'cmp-itl-percentiles',
            'cmp-request-rates',
            'cmp-token-rates',
            'b1-tpot-percentiles',
          ],
        ],
      ] as const) {
        const tab = await browser.open(file, { width: 1280, height: 900 }, drawn)
        const [done, total] = (await tab.evaluate<string>('document.documentElement.dataset.charts')).split(
          '/',
        )
        expect(done, file).toBe(total)
        const pixels = Object.fromEntries(await tab.evaluate<Array<[string, number]>>(colouredPixels))
        expect(Object.keys(pixels)).toEqual(expect.arrayContaining([...expected]))
        expect(
          Object.entries(pixels).filter(([, n]) => n < 50),
          `charts left blank in ${file}`,
        ).toEqual([])
        expect(tab.log, file).toEqual({ errors: [], requests: [] })
        // No label runs off its chart (a knee label cut to "ee: openai-…" did).
        const labels = await tab.evaluate<PageLabel[]>(drawnLabels)
        expect(
          labels.filter((l) => l.left < 0 || l.right > l.width),
          `labels cut off in ${file}`,
        ).toEqual([])
        if (file === sweepHtml || file === combinedHtml) {
          // The points in the order of the concurrency swept, the knee named by its value.
          expect(await tab.evaluate(axes('sweep-latency'))).toEqual([
            ['max concurrency', 'ms', 'output tok/s'],
            ['2', '8', '16'],
          ])
          expect(labels.filter((l) => l.id === 'sweep-latency').map((l) => l.text)).toEqual([
            expect.stringMatching(/^knee: concurrency=(2|8|16)$/),
          ])
          for (const [label, n] of await tab.evaluate<Array<[string, number]>>(seriesPixels('sweep-latency')))
            expect(n, `${label} in the sweep chart of ${file}`).toBeGreaterThan(100)
        }
        if (file === compareHtml) {
          // A histogram of ITL counts token gaps, not requests.
          expect(await tab.evaluate(axes('b1-itl-hist'))).toEqual([['ms', 'token gaps'], []])
          expect(await tab.evaluate(axes('b1-ttft-hist'))).toEqual([['ms', 'requests'], []])
          // 12 tokens a request: both series have one shape, and both stay visible.
          expect(await tab.evaluate(axes('b1-throughput'))).toEqual([
            ['s', 'completed req/s', 'output tok/s'],
            [],
          ])
          const pixels = Object.fromEntries(
            await tab.evaluate<Array<[string, number]>>(seriesPixels('b1-throughput')),
          )
          expect(pixels['completed req/s'], 'completed req/s').toBeGreaterThan(200)
          expect(pixels['output tok/s'], 'output tok/s').toBeGreaterThan(2000)
        }
        if (file === plainHtml) {
          // Two plain results compared from their percentiles and throughputs, one colour each.
          expect(await tab.evaluate(axes('cmp-ttft-percentiles'))).toEqual([
            ['percentile', 'ms'],
            ['p50', 'p90', 'p99'],
          ])
          for (const id of ['cmp-ttft-percentiles', 'cmp-e2el-percentiles', 'cmp-token-rates']) {
            const pixels = await tab.evaluate<Array<[string, number]>>(seriesPixels(id))
            expect(pixels.map(([label]) => label)).toEqual(
              plain.map((f) =>
                f
                  .split('/')
                  .at(-1)!
                  .replace(/-\d{8}-\d{6}\.json$/, ''),
              ),
            )
            for (const [label, n] of pixels) expect(n, `${label} in ${id}`).toBeGreaterThan(100)
          }
        }
        if (shots && file === compareHtml) {
          // The busiest run's section: its TTFT distribution with the failed SLO bound drawn on it.
          const top = await tab.evaluate<number>(
            `document.getElementById('b1').getBoundingClientRect().top + scrollY`,
          )
          await tab.screenshot(join(ROOT, shots, 'report-overview.png'), {
            x: 0,
            y: top,
            width: 1280,
            height: 760,
          })
        }
        if (shots && file === sweepHtml) {
          const clip = await tab.evaluate<{ x: number; y: number; width: number; height: number }>(`(() => {
            const a = document.getElementById('b2-server-queue').closest('figure').getBoundingClientRect()
            const b = document.getElementById('b2-server-cache').closest('figure').getBoundingClientRect()
            return { x: a.x, y: a.y + scrollY, width: b.right - a.x, height: Math.max(a.height, b.height) }
          })()`)
          await tab.screenshot(join(ROOT, shots, 'report-server-metrics.png'), clip)
        }
      }
    } finally {
      await browser.close()
    }
  }, 120_000)
})
