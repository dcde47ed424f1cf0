/**
 * servebench beside the Python peer client (perf/python-peer.py: vLLM's `benchmark()` and
 * `async_request_openai_completions` as `vllm bench serve` runs them, on Debian's python3-aiohttp)
 * on one workload, against one simulator in its own process. Run: `npm run perf -- python`.
 *
 * Both figures cover the same span and the same thing: the whole process's CPU (user + system,
 * every thread: getrusage(RUSAGE_SELF) in Python, process.cpuUsage() here) from the moment the
 * timed run starts ("Starting main benchmark run...", after start-up, imports, the prompts and the
 * initial test request) until the last response is in. Start-up is left out of both: vLLM's own
 * (torch, the tokenizer) is far heavier than the peer's, and servebench's (tokenizer, prompts)
 * would be charged against a peer that has none. The two clients run one after the other, never
 * together; a short Python run first warms the simulator so neither meets it cold.
 */
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { request } from 'undici'
import { defaultBenchConfig } from '../src/config/defaults.ts'
import { percentile } from '../src/metrics/percentile.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { startSimProcess } from './client-overhead.ts'

const OUTPUT_TOKENS = 64
const INPUT_TOKENS = 32
const PYTHON = '/usr/bin/python3'
/** Requests of the untimed Python run that warms the simulator. */
const SIM_WARMUP_REQUESTS = 200

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

export interface PythonPeerComparison {
  concurrency: number
  requests: number
  python: PythonPeerFigures
  servebench: PeerFigures
  /** servebench's run CPU over the Python peer's. */
  cpuRatio: number
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

function runPeer(simUrl: string, concurrency: number, requests: number): Promise<PeerOutput> {
  // The C parser is aiohttp's default; this variable would switch it off.
  const env = { ...process.env }
  delete env.AIOHTTP_NO_EXTENSIONS
  const argv = ['perf/python-peer.py', simUrl, String(concurrency), String(requests), String(OUTPUT_TOKENS)]
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, argv, { stdio: ['ignore', 'pipe', 'pipe'], env })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c
    })
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c
    })
    child.on('error', (error) => reject(new Error(`${PYTHON} cannot be started (${error.message})`)))
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`${PYTHON} ${argv.join(' ')} failed (${code}): ${stderr.slice(-800)}`))
        return
      }
      const out = JSON.parse(stdout) as PeerOutput
      const failed = out.records.filter((r) => !r.success)
      if (failed.length > 0)
        reject(new Error(`Python peer: ${failed.length} requests failed: ${failed[0]!.error}`))
      else if (out.http_parser !== 'c')
        reject(
          new Error(`Python peer: aiohttp ${out.aiohttp} uses its pure-Python parser, not Debian's C one`),
        )
      else resolve(out)
    })
  })
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

/** `servebench serve` as the CLI runs it (self-check on), in this process, timed as the peer is. */
async function measureServebench(
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

/** The Python peer, then servebench, on one simulator (TTFT 50 ms, ITL 20 ms, 64-token streams). */
export async function measurePythonPeer(
  concurrency: number,
  requests: number,
): Promise<PythonPeerComparison> {
  const before = loadavg()[0]!
  const sim = await startSimProcess(['--ttft-ms', '50', '--itl-ms', '20', '--record-timings'])
  try {
    await runPeer(sim.url, concurrency, SIM_WARMUP_REQUESTS)
    await takeTimings(sim.url)
    const python = await measurePython(sim.url, concurrency, requests)
    const servebench = await measureServebench(sim.url, concurrency, requests)
    return {
      concurrency,
      requests,
      python,
      servebench,
      cpuRatio: servebench.runCpuS / python.runCpuS,
      loadAverage1m: { before, after: loadavg()[0]! },
    }
  } finally {
    await sim.stop()
  }
}

/** `npm run perf -- python`: the comparison as lines, then one JSON line. */
export async function printPythonPeer(concurrency = 100, requests = 2_000): Promise<void> {
  console.log(
    `beside the Python peer (perf/python-peer.py, vLLM's client on aiohttp): ${requests.toLocaleString('en')} streams of ${OUTPUT_TOKENS} tokens, concurrency ${concurrency}, ITL 20 ms; whole-process CPU over the timed run`,
  )
  const r = await measurePythonPeer(concurrency, requests)
  const pair = (x: P99): string => `median ${x.median.toFixed(2)} p99 ${x.p99.toFixed(2)} ms`
  const line = (name: string, f: PeerFigures): string =>
    `  ${name} CPU ${f.runCpuS.toFixed(2)} s over ${f.runWallS.toFixed(1)} s, TTFT error ${pair(f.ttftErrorMs)}, ITL error ${pair(f.itlErrorMs)}`
  console.log(line('servebench:', r.servebench))
  console.log(line('python:    ', r.python))
  console.log(
    `  python ${r.python.python}, aiohttp ${r.python.aiohttp} (${r.python.httpParser} parser), ${r.python.eventsPerRead.toFixed(2)} events per read, ${r.python.processCpuS.toFixed(2)} s CPU over its whole life`,
  )
  console.log(
    `  CPU ratio servebench/python: ${r.cpuRatio.toFixed(2)}× (load ${r.loadAverage1m.before.toFixed(2)} before, ${r.loadAverage1m.after.toFixed(2)} after)`,
  )
  console.log(JSON.stringify({ perf: 'python-peer', ...r }))
}
