/**
 * Client overhead against the simulator (run by `npm run perf`): client CPU per request, requests
 * per second, and the client's timestamp error against the times the simulator wrote each event.
 * The simulator runs in its own process so the two do not share an event loop. Beside it: the
 * floor (plain undici on the same simulator, see client-floor.ts), the client's event-loop delay
 * and GC time during the run. The simulator flushes each event to its socket as it stamps it
 * (src/sim/generation.ts uncorks after each write), so its stamp is when the event left.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { loadavg, setPriority } from 'node:os'
import { dirname, join } from 'node:path'
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import type { HttpTransport } from '../src/config/bench-config.ts'
import { defaultBenchConfig } from '../src/config/defaults.ts'
import { percentile } from '../src/metrics/percentile.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'
import { runFreshEntry } from './child-process.ts'
import { FLOOR_KINDS, type FloorCost, type FloorKind, measureFloor } from './client-floor.ts'

interface SimTiming {
  requestId: string
  receivedAtMs: number
  eventSentAtMs: number[]
}

export interface ClientOverhead {
  concurrency: number
  requests: number
  /**
   * Process CPU (all threads) from "Starting main benchmark run" (after any warm-ups) until
   * runBenchmark returns (metrics and result included), over the requests.
   */
  cpuMsPerRequest: number
  /** Streamed content events (one per output token here) per second of process CPU. */
  eventsPerCpuS: number
  /** `--client-threads` of the run (1: the calling thread). */
  clientThreads: number
  /** `--http-transport` of the run. */
  transport: HttpTransport
  /** User-space share of cpuMsPerRequest; the rest is the kernel (socket reads). */
  userCpuMsPerRequest: number
  /**
   * The main thread's share of cpuMsPerRequest (user and kernel); the rest ran on V8's helper
   * threads (parallel scavenges, concurrent marking, compilation) and libuv's pool. Linux only.
   */
  mainThreadCpuMsPerRequest: number | undefined
  requestsPerS: number
  ttftErrorMs: { median: number; p99: number }
  itlErrorMs: { median: number; p99: number }
  /** The client's event-loop delay during the run (monitorEventLoopDelay, 10 ms resolution). */
  eventLoopDelayMs: { p50: number; p99: number; max: number }
  gc: { count: number; totalMs: number; maxMs: number }
  /** Plain undici on the same simulator, same concurrency and request count. */
  floor: FloorCost[]
  loadAverage1m: number
}

export const OUTPUT_TOKENS = 64
const ITL_MS = 20
const TTFT_MS = 50
// Node's default sampling period: a 1 ms timer would wake the loop 1000 times a second during the
// CPU measurement; 10 ms still sees every stall that matters for a 20 ms ITL.
const LOOP_DELAY_RESOLUTION_MS = 10

/** What a client-overhead run sends and how. */
export interface ClientOverheadOptions {
  /** Measure the floors after the run. @default true */
  floor?: boolean
  /** Which floors. @default every kind */
  floorKinds?: FloorKind[]
  /** Tokens per stream. @default OUTPUT_TOKENS */
  outputTokens?: number
  warmups?: number
  clientThreads?: number
  transport?: HttpTransport
}

/** The entry that runs one measurement in a fresh process. */
const FRESH_ENTRY = join(dirname(fileURLToPath(import.meta.url)), 'client-overhead-fresh.ts')

/**
 * {@link measureClientOverhead} in a fresh process: each run pays its own JIT warm-up, as a user's
 * `servebench serve` does, instead of running on code that the runs before it compiled. `entry`
 * is a copy of client-overhead-fresh.ts elsewhere to measure another checkout's client.
 */
export async function measureClientOverheadFresh(
  concurrency: number,
  requests: number,
  options: ClientOverheadOptions = {},
  entry: string = FRESH_ENTRY,
): Promise<ClientOverhead> {
  return (await runFreshEntry(entry, [
    String(concurrency),
    String(requests),
    JSON.stringify(options),
  ])) as ClientOverhead
}

export async function measureClientOverhead(
  concurrency: number,
  requests: number,
  options: ClientOverheadOptions = {},
): Promise<ClientOverhead> {
  const sim = await startSimProcess([
    '--ttft-ms',
    String(TTFT_MS),
    '--itl-ms',
    String(ITL_MS),
    '--record-timings',
  ])
  try {
    const config = defaultBenchConfig()
    config.endpoint.baseUrl = sim.url
    config.tokenizer.id = 'cl100k_base'
    config.dataset.inputLen = 32
    const outputTokens = options.outputTokens ?? OUTPUT_TOKENS
    config.dataset.outputLen = outputTokens
    config.numPrompts = requests
    config.load.maxConcurrency = concurrency
    config.numWarmups = options.warmups ?? 0
    // One thread unless asked: `auto`, the default, would choose by this machine's cores.
    config.clientThreads = options.clientThreads ?? 1
    if (options.transport !== undefined) config.endpoint.httpTransport = options.transport
    // The self-check would count the threads' time against the main thread's share; off here.
    config.clientCheck = 'off'
    let cpuStart: NodeJS.CpuUsage | undefined
    let mainStartMs: number | undefined
    let wallStartMs = 0
    const loopDelay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS })
    const gc = { count: 0, totalMs: 0, maxMs: 0 }
    const gcObserver = new PerformanceObserver((list) => {
      if (cpuStart === undefined) return
      for (const entry of list.getEntries()) {
        gc.count++
        gc.totalMs += entry.duration
        gc.maxMs = Math.max(gc.maxMs, entry.duration)
      }
    })
    gcObserver.observe({ entryTypes: ['gc'] })
    const { records } = await runBenchmark(config, {
      log: (line) => {
        if (line.startsWith('Starting main benchmark run')) {
          cpuStart = process.cpuUsage()
          mainStartMs = mainThreadCpuMs()
          wallStartMs = performance.now()
          loopDelay.enable()
        }
      },
    })
    const cpu = process.cpuUsage(cpuStart)
    const mainEndMs = mainThreadCpuMs()
    const wallMs = performance.now() - wallStartMs
    loopDelay.disable()
    gcObserver.disconnect()
    const failed = records.filter((r) => !r.success)
    if (failed.length > 0) throw new Error(`${failed.length} requests failed: ${failed[0]!.error}`)

    const timings = new Map(
      ((await (await request(`${sim.url}/servebench/timings`)).body.json()) as SimTiming[]).map((t) => [
        t.requestId,
        t,
      ]),
    )
    const ttftErrors: number[] = []
    const itlErrors: number[] = []
    for (const record of records) {
      const t = timings.get(record.requestId)
      if (!t || t.eventSentAtMs.length === 0) continue
      const sent = t.eventSentAtMs
      // How late the client stamped the first event against when the simulator wrote it. Both
      // processes stamp performance.timeOrigin + performance.now(), i.e. the same system clock.
      const firstArrivalMs = performance.timeOrigin + (record.startTimeS + record.ttftS) * 1000
      ttftErrors.push(Math.abs(firstArrivalMs - sent[0]!))
      // ITL errors are interval errors, free of any clock offset.
      record.itlS.forEach((gapS, i) => {
        itlErrors.push(Math.abs(gapS * 1000 - (sent[i + 1]! - sent[i]!)))
      })
    }
    let events = 0
    for (const record of records) events += record.itlS.length + 1
    const floor: FloorCost[] = []
    if (options.floor !== false) {
      for (const kind of options.floorKinds ?? FLOOR_KINDS) {
        floor.push(await measureFloor(kind, sim.url, concurrency, requests, outputTokens))
      }
    }
    // The histogram holds each sampling interval; its delay is what exceeds the period.
    const ms = (ns: number): number => Math.max(0, ns / 1e6 - LOOP_DELAY_RESOLUTION_MS)
    return {
      concurrency,
      requests,
      cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / requests,
      eventsPerCpuS: events / ((cpu.user + cpu.system) / 1e6),
      clientThreads: options.clientThreads ?? 1,
      transport: options.transport ?? 'auto',
      userCpuMsPerRequest: cpu.user / 1000 / requests,
      mainThreadCpuMsPerRequest:
        mainStartMs === undefined || mainEndMs === undefined
          ? undefined
          : (mainEndMs - mainStartMs) / requests,
      requestsPerS: requests / (wallMs / 1000),
      ttftErrorMs: { median: percentile(ttftErrors, 50), p99: percentile(ttftErrors, 99) },
      itlErrorMs: { median: percentile(itlErrors, 50), p99: percentile(itlErrors, 99) },
      eventLoopDelayMs: {
        p50: ms(loopDelay.percentile(50)),
        p99: ms(loopDelay.percentile(99)),
        max: ms(loopDelay.max),
      },
      gc,
      floor,
      loadAverage1m: loadavg()[0]!,
    }
  } finally {
    await sim.stop()
  }
}

/**
 * CPU milliseconds the main thread has used (user and kernel), from /proc; undefined off Linux.
 * Its thread id is the process id. The clock-tick fields are in units of 10 ms (USER_HZ 100).
 */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return undefined
  }
}

export async function startSimProcess(
  args: string[],
  options: {
    /** Scheduling priority (`nice -n`); a negative one needs the privilege, else it runs at the default. */
    nice?: number
  } = {},
): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['bin/servebench.js', 'sim', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  if (options.nice !== undefined && child.pid !== undefined) {
    try {
      setPriority(child.pid, options.nice)
    } catch {
      // Not permitted: the default priority.
    }
  }
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const match = /listening on (http:\/\/\S+)/.exec(out)
      if (match) resolve(match[1]!)
    })
    child.on('exit', (code) => reject(new Error(`servebench sim exited with ${code}`)))
  })
  return {
    url,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
