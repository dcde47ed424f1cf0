/**
 * servebench beside the Python peer client (perf/python-peer.py: vLLM's `benchmark()` and
 * `async_request_openai_completions` as `vllm bench serve` runs them, on Debian's python3-aiohttp)
 * on one workload, against one simulator in its own process. Run: `npm run perf -- python`.
 *
 * Both figures cover the same span and the same thing: the whole process's CPU (user + system,
 * every thread: getrusage(RUSAGE_SELF) in Python, process.cpuUsage() in servebench's) from the
 * moment the timed run starts ("Starting main benchmark run...", after start-up, imports, the
 * prompts and the initial test request) until the last response is in. Start-up is left out of
 * both: vLLM's own (torch, the tokenizer) is far heavier than the peer's, and servebench's
 * (tokenizer, prompts) would be charged against a peer that has none. The two clients run one
 * after the other, never together; a short Python run first warms the simulator so neither meets
 * it cold.
 *
 * One pair of runs on a shared machine moves by a quarter either way, so the comparison is made
 * in rounds (`PYTHON_ROUNDS`, 3 by default), the order alternating (Python first, then servebench
 * first), and the median ratio is the figure. Each client runs in a fresh process every round:
 * servebench's in this process would carry the JIT's work from the rounds (and sections) before.
 */
import { loadavg } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { defaultBenchConfig } from '../src/config/defaults.ts'
import { median, percentile } from '../src/metrics/percentile.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { runChild, runFreshEntry } from './child-process.ts'
import { startSimProcess } from './client-overhead.ts'
import { countFromEnv } from './env-count.ts'

const OUTPUT_TOKENS = 64
const INPUT_TOKENS = 32
const PYTHON = '/usr/bin/python3'
/** Requests of the untimed Python run that warms the simulator. */
const SIM_WARMUP_REQUESTS = 200
const DEFAULT_ROUNDS = 3
/** The entry a fresh process runs for one servebench round (perf/python-peer-servebench.ts). */
const SERVEBENCH_ENTRY = join(dirname(fileURLToPath(import.meta.url)), 'python-peer-servebench.ts')

interface P99 {
  median: number
  p99: number
}

export interface PeerFigures {
  /** Whole-process CPU (user + system, all threads) over the timed run, seconds. */
  runCpuS: number
  runWallS: number
  /** TTFT timestamp error against the simulator's send stamp of the first event, ms. */
  ttftErrorMs: P99
  /** ITL timestamp error: each measured gap against the gap between the two send stamps, ms. */
  itlErrorMs: P99
}

export interface PythonPeerFigures extends PeerFigures {
  /** The process's CPU over its whole life (interpreter start-up, imports, test request), seconds. */
  processCpuS: number
  /** Streamed events per `iter_any()` chunk: 1 when the client keeps up with the simulator. */
  eventsPerRead: number
  /** `c` when aiohttp's C response parser is in use (Debian's build), else `python`. */
  httpParser: string
  aiohttp: string
  python: string
}

/** One round: each client once, in the order given. */
export interface PeerRound {
  pythonFirst: boolean
  python: PythonPeerFigures
  servebench: PeerFigures
  /** servebench's run CPU over the Python peer's. */
  cpuRatio: number
}

export interface PythonPeerComparison {
  concurrency: number
  requests: number
  rounds: PeerRound[]
  /** The rounds' CPU ratios: their median, the figure, and their range. */
  cpuRatio: { median: number; min: number; max: number }
  loadAverage1m: { before: number; after: number }
}

interface SimTiming {
  requestId: string
  eventSentAtMs: number[]
}

/** What the simulator stamped when it wrote each event, by request id; then forgets them. */
async function takeTimings(simUrl: string): Promise<Map<string, number[]>> {
  const timings = (await (await request(`${simUrl}/servebench/timings`)).body.json()) as SimTiming[]
  await request(`${simUrl}/servebench/timings`, { method: 'DELETE' }).then((r) => r.body.dump())
  return new Map(timings.map((t) => [t.requestId, t.eventSentAtMs]))
}

interface Arrivals {
  id: string
  /** When the first event was read, epoch ms (the simulator stamps epoch ms too). */
  firstEventEpochMs: number
  itlS: readonly number[]
}

function timestampErrors(
  arrivals: readonly Arrivals[],
  sent: ReadonlyMap<string, number[]>,
): { ttftErrorMs: P99; itlErrorMs: P99 } {
  const ttft: number[] = []
  const itl: number[] = []
  for (const a of arrivals) {
    const stamps = sent.get(a.id)
    if (!stamps || stamps.length === 0) continue
    ttft.push(Math.abs(a.firstEventEpochMs - stamps[0]!))
    a.itlS.forEach((gapS, i) => {
      if (i + 1 < stamps.length) itl.push(Math.abs(gapS * 1000 - (stamps[i + 1]! - stamps[i]!)))
    })
  }
  const pair = (xs: number[]): P99 => ({ median: percentile(xs, 50), p99: percentile(xs, 99) })
  return { ttftErrorMs: pair(ttft), itlErrorMs: pair(itl) }
}

interface PeerOutput {
  run_cpu_s: number
  run_wall_s: number
  process_cpu_s: number
  http_parser: string
  aiohttp: string
  python: string
  records: Array<{
    id: string
    success: boolean
    error: string
    start_epoch_ms: number
    ttft_s: number
    itl: number[]
    chunks: number
  }>
}

async function runPeer(simUrl: string, concurrency: number, requests: number): Promise<PeerOutput> {
  // The C parser is aiohttp's default; this variable would switch it off.
  const env = { ...process.env }
  delete env.AIOHTTP_NO_EXTENSIONS
  const argv = ['perf/python-peer.py', simUrl, String(concurrency), String(requests), String(OUTPUT_TOKENS)]
  const { code, stdout, stderr } = await runChild(PYTHON, argv, env)
  if (code !== 0) throw new Error(`${PYTHON} ${argv.join(' ')} failed (${code}): ${stderr.slice(-800)}`)
  const out = JSON.parse(stdout) as PeerOutput
  const failed = out.records.filter((r) => !r.success)
  if (failed.length > 0) throw new Error(`Python peer: ${failed.length} requests failed: ${failed[0]!.error}`)
  if (out.http_parser !== 'c') {
    throw new Error(`Python peer: aiohttp ${out.aiohttp} uses its pure-Python parser, not Debian's C one`)
  }
  return out
}

async function measurePython(
  simUrl: string,
  concurrency: number,
  requests: number,
): Promise<PythonPeerFigures> {
  const out = await runPeer(simUrl, concurrency, requests)
  const sent = await takeTimings(simUrl)
  let events = 0
  let reads = 0
  for (const r of out.records) {
    events += r.itl.length + 1
    reads += r.chunks
  }
  return {
    runCpuS: out.run_cpu_s,
    runWallS: out.run_wall_s,
    ...timestampErrors(
      out.records.map((r) => ({
        id: r.id,
        firstEventEpochMs: r.start_epoch_ms + r.ttft_s * 1000,
        itlS: r.itl,
      })),
      sent,
    ),
    processCpuS: out.process_cpu_s,
    eventsPerRead: events / reads,
    httpParser: out.http_parser,
    aiohttp: out.aiohttp,
    python: out.python,
  }
}

/**
 * `servebench serve` as the CLI runs it (self-check on), in the calling process, timed as the peer
 * is. perf/python-peer-servebench.ts calls it in a fresh process for each round.
 */
export async function measureServebench(
  simUrl: string,
  concurrency: number,
  requests: number,
): Promise<PeerFigures> {
  const config = defaultBenchConfig()
  config.endpoint.baseUrl = simUrl
  config.tokenizer.id = 'cl100k_base'
  config.dataset.inputLen = INPUT_TOKENS
  config.dataset.outputLen = OUTPUT_TOKENS
  config.numPrompts = requests
  config.load.maxConcurrency = concurrency
  let start: { cpu: NodeJS.CpuUsage; wallMs: number } | undefined
  let end: { cpu: NodeJS.CpuUsage; wallMs: number } | undefined
  const { records } = await runBenchmark(config, {
    log: (line) => {
      if (line.startsWith('Starting main benchmark run'))
        start = { cpu: process.cpuUsage(), wallMs: performance.now() }
    },
    onRequestEnd: (done, total) => {
      if (done === total) end = { cpu: process.cpuUsage(), wallMs: performance.now() }
    },
  })
  if (!start || !end) throw new Error('servebench: the timed run was not seen to start and end')
  const failed = records.filter((r) => !r.success)
  if (failed.length > 0) throw new Error(`servebench: ${failed.length} requests failed: ${failed[0]!.error}`)
  const cpuUs = end.cpu.user + end.cpu.system - (start.cpu.user + start.cpu.system)
  const sent = await takeTimings(simUrl)
  return {
    runCpuS: cpuUs / 1e6,
    runWallS: (end.wallMs - start.wallMs) / 1000,
    ...timestampErrors(
      records.map((r) => ({
        id: r.requestId,
        // Records are on performance.now(); timeOrigin puts them on the simulator's epoch clock.
        firstEventEpochMs: performance.timeOrigin + (r.startTimeS + r.ttftS) * 1000,
        itlS: r.itlS,
      })),
      sent,
    ),
  }
}

/** One servebench round in a fresh process (perf/python-peer-servebench.ts). */
async function runServebench(simUrl: string, concurrency: number, requests: number): Promise<PeerFigures> {
  return (await runFreshEntry(SERVEBENCH_ENTRY, [
    simUrl,
    String(concurrency),
    String(requests),
  ])) as PeerFigures
}

/**
 * `rounds` rounds of the Python peer and servebench on one simulator (TTFT 50 ms, ITL 20 ms,
 * 64-token streams), Python first in the odd rounds and second in the even ones, so a machine
 * getting busier or quieter over the run does not favour one client.
 */
export async function measurePythonPeer(
  concurrency: number,
  requests: number,
  rounds: number,
): Promise<PythonPeerComparison> {
  const before = loadavg()[0]!
  const sim = await startSimProcess(['--ttft-ms', '50', '--itl-ms', '20', '--record-timings'])
  try {
    await runPeer(sim.url, concurrency, SIM_WARMUP_REQUESTS)
    await takeTimings(sim.url)
    const done: PeerRound[] = []
    for (let round = 0; round < rounds; round++) {
      const pythonFirst = round % 2 === 0
      const first = pythonFirst ? await measurePython(sim.url, concurrency, requests) : undefined
      const servebench = await runServebench(sim.url, concurrency, requests)
      const python = first ?? (await measurePython(sim.url, concurrency, requests))
      done.push({ pythonFirst, python, servebench, cpuRatio: servebench.runCpuS / python.runCpuS })
    }
    const ratios = done.map((r) => r.cpuRatio)
    return {
      concurrency,
      requests,
      rounds: done,
      cpuRatio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
      loadAverage1m: { before, after: loadavg()[0]! },
    }
  } finally {
    await sim.stop()
  }
}

/** `npm run perf -- python`: a line per round, the medians, then one JSON line. */
export async function printPythonPeer(concurrency = 100, requests = 2_000): Promise<void> {
  const rounds = countFromEnv('PYTHON_ROUNDS', DEFAULT_ROUNDS)
  console.log(
    `beside the Python peer (perf/python-peer.py, vLLM's client on aiohttp): ${requests.toLocaleString('en')} streams of ${OUTPUT_TOKENS} tokens, concurrency ${concurrency}, ITL 20 ms; whole-process CPU over the timed run; ${rounds} round${rounds > 1 ? 's' : ''}, each client in a fresh process, the order alternating`,
  )
  const r = await measurePythonPeer(concurrency, requests, rounds)
  const ms = (x: number): string => `${x.toFixed(2)} ms`
  r.rounds.forEach((round, i) => {
    const { python, servebench } = round
    console.log(
      `  round ${i + 1} (${round.pythonFirst ? 'python' : 'servebench'} first): CPU servebench ${servebench.runCpuS.toFixed(2)} s, python ${python.runCpuS.toFixed(2)} s, ` +
        `${round.cpuRatio.toFixed(2)}×; ITL error p99 ${ms(servebench.itlErrorMs.p99)} against ${ms(python.itlErrorMs.p99)}, ` +
        `TTFT error p99 ${ms(servebench.ttftErrorMs.p99)} against ${ms(python.ttftErrorMs.p99)} (runs of ${servebench.runWallS.toFixed(1)} and ${python.runWallS.toFixed(1)} s)`,
    )
  })
  const medianOf = (pick: (round: PeerRound) => number): number => median(r.rounds.map(pick))
  console.log(
    `  CPU ratio servebench/python: median ${r.cpuRatio.median.toFixed(2)}× (${r.cpuRatio.min.toFixed(2)}–${r.cpuRatio.max.toFixed(2)}); ` +
      `ITL error p99, median of the rounds: ${ms(medianOf((x) => x.servebench.itlErrorMs.p99))} against ${ms(medianOf((x) => x.python.itlErrorMs.p99))} ` +
      `(load ${r.loadAverage1m.before.toFixed(2)} before, ${r.loadAverage1m.after.toFixed(2)} after)`,
  )
  const python = r.rounds[0]!.python
  console.log(
    `  python ${python.python}, aiohttp ${python.aiohttp} (${python.httpParser} parser), ${python.eventsPerRead.toFixed(2)} events per read, ${python.processCpuS.toFixed(2)} s CPU over its whole life (round 1)`,
  )
  console.log(JSON.stringify({ perf: 'python-peer', ...r }))
}
