import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CapacityResultFile } from '../src/capacity/capacity-result.ts'
import { type SimServer, startSimulator } from '../src/sim/server.ts'
import { capacityFixture } from './capacity-fixture.ts'
import { Browser, CHROMIUM, hasChromium } from './chromium.ts'
import { runCli } from './helpers.ts'
import { colouredPixels, drawn, drawnLabels, type PageLabel } from './report-page.ts'

// Two sequences at most: TTFT grows with the request rate once requests queue.
let sim: SimServer
let dir: string
let capacity: CapacityResultFile
let capacityFile: string
// A concurrency sweep's results, as a servebench sweep summary.json (a list of runs).
let sweepSummary: string

const chartIds = (page: string): string[] =>
  (
    JSON.parse(
      /<script type="application\/json" id="servebench-charts">(.*?)<\/script>/s.exec(page)![1]!,
    ) as Array<{
      id: string
    }>
  ).map((c) => c.id)

beforeAll(async () => {
  sim = await startSimulator({ maxNumSeqs: 2, decodeBaseMs: 10 })
  dir = await mkdtemp(join(tmpdir(), 'servebench-report-capacity-'))
  capacity = await capacityFixture({
    baseUrl: sim.url,
    dir: join(dir, 'probes'),
    loads: [64, 2, 16],
    numPrompts: 40,
    slos: [
      { metric: 'p50_ttft_ms', bound: 0, kind: 'max' },
      { metric: 'mean_e2el_ms', bound: 0, kind: 'max' },
    ],
    // Just above the lightest load's interval (in run order, the load of 2 req/s is second): it
    // holds there, and the heaviest load, whose requests queue, breaks it.
    boundFrom: (_slo, checks) => Math.ceil(checks[1]!.upper * 1.2),
  })
  capacityFile = join(dir, 'cap.json')
  await writeFile(capacityFile, JSON.stringify(capacity))
  const sweep = await runCli([
    'serve',
    ...['--base-url', sim.url, '--tokenizer', 'cl100k_base', '--model', 'sim'],
    ...['--random-input-len', '32', '--random-output-len', '8', '--num-prompts', '8'],
    ...[
      '--sweep-max-concurrency',
      '1,2,8',
      '--save-result',
      '--result-dir',
      join(dir, 'sweep'),
      '--disable-tqdm',
    ],
  ])
  expect(sweep.code, sweep.stderr).toBe(0)
  const files = (await readdir(join(dir, 'sweep'))).filter((f) => /-concurrency\d+-/.test(f))
  const runs = await Promise.all(
    files.map(async (f) => ({
      ...JSON.parse(await readFile(join(dir, 'sweep', f), 'utf8')),
      run_number: 0,
    })),
  )
  await mkdir(join(dir, 'exp'))
  sweepSummary = join(dir, 'exp', 'summary.json')
  await writeFile(sweepSummary, JSON.stringify(runs, null, 4))
}, 180_000)

afterAll(async () => {
  await sim?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('the HTML report of a capacity search and of a sweep’s Pareto frontier', () => {
  it('builds a capacity file from real probes that the report can read', () => {
    expect(capacity.probes.map((p) => p.load)).toEqual([64, 2, 16])
    const light = capacity.probes[1]!
    const heavy = capacity.probes[0]!
    expect(light.checks[0]!.estimate).toBeLessThan(heavy.checks[0]!.estimate)
    expect(light.verdict).toBe('pass')
    expect(heavy.verdict).toBe('fail')
    // The answer lies in its interval, below the first load that did not pass.
    const { value, lower, upper } = capacity.capacity
    if (value !== null) {
      expect(lower).toBeLessThanOrEqual(value)
      expect(upper).toBeGreaterThanOrEqual(value)
    }
    for (const p of capacity.probes) {
      expect(Object.values(p.result).some(Array.isArray)).toBe(false)
      for (const c of p.checks) {
        expect(c.lower).toBeLessThanOrEqual(c.estimate)
        expect(c.upper).toBeGreaterThanOrEqual(c.estimate)
      }
    }
  })

  it('draws each SLO against the offered load with its bound, the probes’ verdicts and the answer', async () => {
    const out = join(dir, 'capacity.html')
    const run = await runCli(['report', capacityFile, '-o', out])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const page = await readFile(out, 'utf8')
    expect(chartIds(page)).toEqual(['capacity-slo-0', 'capacity-slo-1'])
    expect(page).toContain('<h2>Capacity: cap</h2>')
    const sentence = /<p class="note">(capacity [^<]*)<\/p>/.exec(page)?.[1]
    expect(sentence).toMatch(
      new RegExp(`^capacity ${capacity.capacity.value} req/s \\(95% interval 2–(16|64)\\); binding SLO: `),
    )
    expect(sentence).toContain(`3 loads probed, ${capacity.search.total_requests} requests`)
    expect(page).toContain('<h3>Probes (in the order run)</h3>')
    const charts = JSON.parse(
      /<script type="application\/json" id="servebench-charts">(.*?)<\/script>/s.exec(page)![1]!,
    ) as Array<{ x: number[]; marks: Array<{ axis: string; value: number; label: string }> }>
    // Loads in ascending order on the x axis; the SLO's bound across y.
    expect(charts[0]!.x).toEqual([2, 16, 64])
    expect(charts[0]!.marks[0]).toMatchObject({ axis: 'y', value: capacity.slos[0]!.bound })
    expect(charts[0]!.marks[0]!.label).toBe(`SLO p50_ttft_ms ≤ ${capacity.slos[0]!.bound} ms`)
  })

  it('refuses a capacity file it cannot draw, naming the key (exit 2)', async () => {
    const bad = join(dir, 'bad-cap.json')
    await writeFile(bad, JSON.stringify({ ...capacity, capacity: { ...capacity.capacity, vary: 'qps' } }))
    const run = await runCli(['report', bad, '-o', join(dir, 'bad.html')])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`${bad} capacity.vary must be request-rate or max-concurrency (got "qps")`)
  })

  it('draws the Pareto frontier of a sweep’s summary.json beside its latency by load', async () => {
    const out = join(dir, 'pareto.html')
    const run = await runCli(['report', sweepSummary, '-o', out])
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const page = await readFile(out, 'utf8')
    expect(page).toContain('<h2>Sweep: exp</h2>')
    expect(chartIds(page).slice(0, 2)).toEqual(['sweep-latency', 'sweep-pareto'])
  })

  it('draws every chart in a browser, with no error and no request', async ({ skip }) => {
    if (!hasChromium()) {
      if (process.env.CI)
        throw new Error(`Chromium is missing at ${CHROMIUM}: .ci/run installs Debian's chromium package`)
      return skip(`Chromium is missing at ${CHROMIUM} (apt-get install chromium): the pages were not drawn`)
    }
    const browser = await Browser.launch()
    try {
      for (const [file, expected] of [
        [join(dir, 'capacity.html'), ['capacity-slo-0', 'capacity-slo-1']],
        [join(dir, 'pareto.html'), ['sweep-latency', 'sweep-pareto']],
      ] as const) {
        const tab = await browser.open(file, { width: 1280, height: 900 }, drawn)
        const [done, total] = (await tab.evaluate<string>('document.documentElement.dataset.charts')).split(
          '/',
        )
        expect(done, file).toBe(total)
        const pixels = Object.fromEntries(await tab.evaluate<Array<[string, number]>>(colouredPixels))
        expect(Object.keys(pixels)).toEqual(expect.arrayContaining([...expected]))
        for (const id of expected) expect(pixels[id], `${id} in ${file}`).toBeGreaterThan(50)
        expect(tab.log, file).toEqual({ errors: [], requests: [] })
        const labels = await tab.evaluate<PageLabel[]>(drawnLabels)
        expect(labels.filter((l) => l.left < 0 || l.right > l.width)).toEqual([])
        if (file.endsWith('capacity.html')) {
          expect(labels.filter((l) => l.id === 'capacity-slo-0').map((l) => l.text)).toEqual(
            expect.arrayContaining([expect.stringMatching(/^SLO p50_ttft_ms ≤ /)]),
          )
        }
      }
    } finally {
      await browser.close()
    }
  })
})
