/**
 * `npm run perf -- many-core` (or, with only the production dependencies and tsx,
 * `node --import tsx perf/many-core.ts`): servebench on many cores against vLLM's own client. One
 * data-parallel simulator (`servebench sim --data-parallel-size E`, fixed timing: TTFT 50 ms, ITL
 * 20 ms, 64 output tokens) serves a closed loop (`--request-rate inf --max-concurrency C`) at each
 * concurrency, sent by `servebench serve` with 1 … N client threads and `auto`, by segment
 * processes merged with `servebench merge`, and by the Python peer (perf/python-peer.py, where
 * python3 has aiohttp). Every client runs in fresh processes. The table and JSON lines print as
 * the cells end and are rewritten into `MANY_CORE_OUT` (when set) after each, so a remote run
 * brings them back. On fewer than 8 cores it runs a reduced form and says the figures do not
 * speak for many cores. docs/scaling-the-client.md lists the variables.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { availableParallelism, cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { autoClientThreads } from '../src/runner/threads/auto-threads.ts'
import {
  type Cell,
  ITL_MS,
  OUTPUT_TOKENS,
  pythonCell,
  pythonMissing,
  REQUEST_S,
  SERVEBENCH,
  segmentsCell,
  servebenchCell,
  skippedCell,
  TTFT_MS,
} from './many-core-cells.ts'
import {
  cellJson,
  type MeasuredCell,
  ReportFiles,
  table,
  tableRow,
  targetVerdict,
} from './many-core-report.ts'

/** Below this many cores the figures say nothing about many cores: the reduced form runs. */
export const MIN_CORES = 8

/** What one run of the harness measures. */
export interface ManyCorePlan {
  cores: number
  /** Why the reduced form runs; absent for the full table. */
  reduced?: string
  concurrencies: number[]
  threads: Array<number | 'auto'>
  segments: number
  engines: number
  /** Requests per cell: waves × C. */
  waves: number
  budgetS: number
  cellTimeoutS: number
  /** `MANY_CORE_PYTHON`; absent: `python3` or `/usr/bin/python3`, whichever has aiohttp. */
  python?: string
}

/** The plan for a machine of `cores` cores and the `MANY_CORE_*` variables in `env`. */
export function planManyCore(cores: number, env: NodeJS.ProcessEnv): ManyCorePlan {
  const reduced =
    env.MANY_CORE_REDUCED === '1'
      ? 'MANY_CORE_REDUCED=1'
      : cores < MIN_CORES
        ? `this machine has ${cores} cores, fewer than ${MIN_CORES}: the figures say nothing about many cores`
        : undefined
  const list = (name: string): string[] | undefined =>
    env[name]
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
  const count = (name: string, fallback: number): number => {
    const value = Number(env[name])
    return env[name] !== undefined && Number.isFinite(value) && value > 0 ? value : fallback
  }
  const powers: Array<number | 'auto'> = []
  for (let t = 1; t < cores; t *= 2) powers.push(t)
  return {
    cores,
    ...(reduced ? { reduced } : {}),
    concurrencies: list('MANY_CORE_CONCURRENCY')?.map(Number) ?? (reduced ? [100, 400] : [500, 2_000, 4_000]),
    threads: list('MANY_CORE_THREADS')?.map((t) => (t === 'auto' ? 'auto' : Number(t))) ?? [
      ...(reduced ? [1, 2] : powers),
      'auto',
    ],
    segments: count('MANY_CORE_SEGMENTS', reduced ? 2 : 4),
    // The simulator spends more CPU writing an event than the client reading it (one timed run of
    // 2,000 streams at concurrency 200: 33 against 21 µs per event): half the cores.
    engines: count('MANY_CORE_ENGINES', reduced ? 2 : Math.max(2, Math.round(cores / 2))),
    waves: count('MANY_CORE_WAVES', reduced ? 3 : 4),
    budgetS: count('MANY_CORE_BUDGET_S', 480),
    cellTimeoutS: count('MANY_CORE_CELL_TIMEOUT_S', 180),
    ...(env.MANY_CORE_PYTHON ? { python: env.MANY_CORE_PYTHON } : {}),
  }
}

/**
 * Each segment process gets its share of the threads `auto` gives the whole run on this machine (at
 * least one), so the segments and the one process spend about the same threads.
 */
export function segmentThreads(concurrency: number, segments: number, cores: number): number {
  const whole = autoClientThreads(
    {
      requests: Number.POSITIVE_INFINITY,
      maxConcurrency: concurrency,
      requestRatePerS: Number.POSITIVE_INFINITY,
      eventsPerRequest: OUTPUT_TOKENS,
    },
    cores,
  )
  return Math.max(1, Math.ceil(whole / segments))
}

/** Runs the plan and prints the table; resolves with every cell. */
export async function printManyCore(env: NodeJS.ProcessEnv = process.env): Promise<MeasuredCell[]> {
  const cores = availableParallelism()
  const plan = planManyCore(cores, env)
  const header = [
    `# servebench many-core: ${cores} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load ${loadavg()[0]!.toFixed(2)}`,
    '',
    `Simulator: ${plan.engines} engine processes behind one port (\`servebench sim --data-parallel-size ${plan.engines}\`), fixed timing TTFT ${TTFT_MS} ms, ITL ${ITL_MS} ms, ${OUTPUT_TOKENS} output tokens (one request ${REQUEST_S.toFixed(2)} s, so a closed loop of concurrency C completes at most C / ${REQUEST_S.toFixed(2)} req/s). Clients: \`--request-rate inf --max-concurrency C\`, ${plan.waves} × C requests per cell, each client in fresh processes; segments: ${plan.segments} processes started together (\`--start-at\`) and merged (\`servebench merge\`).`,
    ...(plan.reduced ? ['', `**Reduced form**: ${plan.reduced}.`] : []),
  ]
  for (const line of header) console.log(line)
  const machine = { cores, model: cpus()[0]?.model, node: process.version, plan }
  const files = new ReportFiles(env.MANY_CORE_OUT || undefined, header, machine)
  const { python, missing } = await findPython(plan.python)
  const sim = await startSim(plan.engines)
  const cells: MeasuredCell[] = []
  const startedMs = performance.now()
  try {
    // One unrecorded run first: the first client would otherwise meet a cold simulator and cold
    // file caches, and the first cell of the table is the target's.
    const warm = Math.min(...plan.concurrencies)
    await servebenchCell(
      { simUrl: sim.url, concurrency: warm, requests: warm, timeoutMs: plan.cellTimeoutS * 1000 },
      1,
    )
    console.log('')
    for (const line of table([]).slice(0, 2)) console.log(line)
    for (const concurrency of plan.concurrencies) {
      const setup = {
        simUrl: sim.url,
        concurrency,
        requests: plan.waves * concurrency,
        timeoutMs: plan.cellTimeoutS * 1000,
      }
      const perSegment = segmentThreads(concurrency, plan.segments, cores)
      // The target's cells first, so a tight budget still judges it.
      const runs: Array<[string, () => Promise<Cell>]> = [
        ['auto', () => servebenchCell(setup, 'auto')],
        ['segments', () => segmentsCell(setup, plan.segments, perSegment, segmentLeadS(cells, concurrency))],
        ...plan.threads
          .filter((t): t is number => t !== 'auto')
          .map((t): [string, () => Promise<Cell>] => [`${t}`, () => servebenchCell(setup, t)]),
        [
          'python',
          () =>
            python !== undefined
              ? pythonCell(setup, python)
              : Promise.resolve(skippedCell(setup, 'python', "vLLM's Python client", `not run: ${missing}`)),
        ],
      ]
      for (const [name, run] of runs) {
        if (name === 'auto' && !plan.threads.includes('auto')) continue
        if ((performance.now() - startedMs) / 1000 > plan.budgetS) {
          const [client, label]: [Cell['client'], string] =
            name === 'python'
              ? ['python', "vLLM's Python client"]
              : name === 'segments'
                ? ['segments', `${plan.segments} segment processes, merged`]
                : [
                    'servebench',
                    `servebench, ${name === 'auto' ? 'auto' : `${name} thread${name === '1' ? '' : 's'}`}`,
                  ]
          cells.push(skippedCell(setup, client, label, `not run: past MANY_CORE_BUDGET_S=${plan.budgetS}`))
          console.log(tableRow(cells.at(-1)!))
          continue
        }
        await sim.idle()
        const before = await sim.stepLag()
        const cell: MeasuredCell = await run()
        const after = await sim.stepLag()
        if (after && before && after.count > before.count) {
          cell.simStepLagMeanMs = ((after.sumS - before.sumS) / (after.count - before.count)) * 1000
        }
        cells.push(cell)
        console.log(tableRow(cell))
        files.write(cells)
      }
    }
  } finally {
    await sim.stop()
  }
  const verdict = targetVerdict(cells, ITL_MS)
  const footer = [
    verdict,
    ...(plan.reduced ? [`(reduced form: ${plan.reduced})`] : []),
    `whole run ${((performance.now() - startedMs) / 1000).toFixed(0)} s`,
  ]
  console.log('')
  for (const line of footer) console.log(line)
  for (const cell of cells) console.log(cellJson(cell))
  files.write(cells, footer)
  return cells
}

/**
 * The Python that runs the peer: `MANY_CORE_PYTHON` when set (`0`: none), else `python3` or
 * Debian's `/usr/bin/python3`, whichever has aiohttp; otherwise why none can.
 */
async function findPython(wanted: string | undefined): Promise<{ python?: string; missing: string }> {
  if (wanted === '0') return { missing: 'MANY_CORE_PYTHON=0' }
  const candidates = wanted ? [wanted] : ['python3', '/usr/bin/python3']
  const why: string[] = []
  for (const candidate of candidates) {
    const missing = await pythonMissing(candidate)
    if (missing === undefined) return { python: candidate, missing: '' }
    why.push(missing)
  }
  return { missing: why.join(', ') }
}

/** How far ahead the segments start: past the start-up the servebench runs at this concurrency took. */
function segmentLeadS(cells: readonly Cell[], concurrency: number): number {
  const startups = cells.filter((c) => c.concurrency === concurrency && c.startupS !== undefined)
  return Math.max(8, 2 * Math.max(0, ...startups.map((c) => c.startupS!)) + 2)
}

interface SimProcess {
  url: string
  /** Resolves once no request is running (at most 30 s). */
  idle(): Promise<void>
  /** The engines' step-lag sum (s) and step count so far. */
  stepLag(): Promise<{ sumS: number; count: number } | undefined>
  stop(): Promise<void>
}

async function startSim(engines: number): Promise<SimProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...SERVEBENCH,
      'sim',
      '--port',
      '0',
      '--ttft-ms',
      String(TTFT_MS),
      '--itl-ms',
      String(ITL_MS),
      '--data-parallel-size',
      String(engines),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const match = /listening on (http:\/\/\S+)/.exec(out)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`servebench sim exited with ${code} before it listened`)))
  })
  const sum = async (pattern: RegExp): Promise<number | undefined> => {
    try {
      const text = await (await request(`${url}/metrics`)).body.text()
      let total = 0
      for (const match of text.matchAll(pattern)) total += Number(match[1])
      return total
    } catch {
      return undefined
    }
  }
  const stopOnSignal = (): void => {
    child.kill('SIGTERM')
  }
  process.once('SIGINT', stopOnSignal)
  return {
    url,
    async idle() {
      for (let waited = 0; waited < 30_000; waited += 100) {
        if ((await sum(/^vllm:num_requests_running\{[^}]*\} (\S+)$/gm)) === 0) return
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    },
    async stepLag() {
      const sumS = await sum(/^servebench_sim_step_lag_seconds\{[^}]*stat="sum"\} (\S+)$/gm)
      const count = await sum(/^servebench_sim_step_lag_seconds\{[^}]*stat="count"\} (\S+)$/gm)
      return sumS === undefined || count === undefined ? undefined : { sumS, count }
    },
    stop: () =>
      new Promise((resolve) => {
        process.off('SIGINT', stopOnSignal)
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await printManyCore()
