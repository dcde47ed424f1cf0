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

// One simulator for the file: 4 sequences at most, so a concurrency of 16 leaves 12 waiting.
let sim: SimServer
let dir: string
let points: Array<{ file: string; result: Record<string, unknown> }>

beforeAll(async () => {
  sim = await startSimulator({ maxNumSeqs: 4, decodeBaseMs: 10 })
  dir = await mkdtemp(join(tmpdir(), 'servebench-report-'))
  const run = await runCli([
    'serve',
    ...['--base-url', sim.url, '--tokenizer', 'cl100k_base'],
    ...['--random-input-len', '32', '--random-output-len', '12', '--num-prompts', '16'],
    ...['--sweep-max-concurrency', '2,8,16', '--server-metrics-interval', '0.05'],
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
    const [sweep, compare, markdown, bad] = await Promise.all([
      runCli([
        'report',
        c2.file,
        c8.file,
        c16.file,
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
    ])
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'servebench: Invalid configuration (3 issues):\n  - --bogus is not a servebench report flag; valid: --output, -o, --title, --summary, --history, --csv, --help\n  - --output needs a value\n  - report needs at least one result file (got 0); see servebench report --help\n',
    ])
    expect(
      [sweep.code, compare.code, markdown.code],
      `${sweep.stderr}${compare.stderr}${markdown.stderr}`,
    ).toEqual([0, 0, 0])
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
      const drawn = `document.documentElement.dataset.charts !== undefined`
      const colouredPixels = `[...document.querySelectorAll('.chart')].map((el) => {
        const canvas = el.querySelector('canvas')
        if (!canvas) return [el.id, 0]
        const d = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data
        let n = 0
        for (let i = 0; i < d.length; i += 4)
          if (d[i + 3] > 0 && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 40) n++
        return [el.id, n]
      })`
      const shots = process.env.SERVEBENCH_SCREENSHOTS
      for (const [file, expected] of [
        [sweepHtml, ['sweep-latency', 'b2-server-queue', 'b2-server-cache', 'b0-ttft-cdf', 'trend-0']],
        [
          compareHtml,
          ['cmp-ttft', 'b1-ttft-cdf', 'b1-ttft-hist', 'b1-throughput', 'b1-inflight', 'b1-server-queue'],
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
