/**
 * Client overhead against the simulator (run by `npm run perf`): client CPU per request, requests
 * per second, and the client's timestamp error against the times the simulator wrote each event.
 * The simulator runs in its own process so the two do not share an event loop.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { request } from 'undici'
import { defaultBenchConfig } from '../src/config/defaults.ts'
import { percentile } from '../src/metrics/percentile.ts'
import { runBenchmark } from '../src/runner/run-benchmark.ts'

interface SimTiming {
  requestId: string
  receivedAtMs: number
  eventSentAtMs: number[]
}

export interface ClientOverhead {
  concurrency: number
  requests: number
  cpuMsPerRequest: number
  /** User-space share of cpuMsPerRequest; the rest is the kernel (socket reads). */
  userCpuMsPerRequest: number
  requestsPerS: number
  ttftErrorMs: { median: number; p99: number }
  itlErrorMs: { median: number; p99: number }
  loadAverage1m: number
}

const OUTPUT_TOKENS = 64
const ITL_MS = 20
const TTFT_MS = 50

export async function measureClientOverhead(concurrency: number, requests: number): Promise<ClientOverhead> {
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
    config.dataset.outputLen = OUTPUT_TOKENS
    config.numPrompts = requests
    config.load.maxConcurrency = concurrency
    let cpuStart: NodeJS.CpuUsage | undefined
    let wallStartMs = 0
    const { records } = await runBenchmark(config, {
      log: (line) => {
        if (line.startsWith('Starting main benchmark run')) {
          cpuStart = process.cpuUsage()
          wallStartMs = performance.now()
        }
      },
    })
    const cpu = process.cpuUsage(cpuStart)
    const wallMs = performance.now() - wallStartMs
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
      // How late the client stamped the first event against when the simulator wrote it. Both
      // processes stamp performance.timeOrigin + performance.now(), i.e. the same system clock.
      const firstArrivalMs = performance.timeOrigin + (record.startTimeS + record.ttftS) * 1000
      ttftErrors.push(Math.abs(firstArrivalMs - t.eventSentAtMs[0]!))
      // ITL errors are interval errors, free of any clock offset.
      record.itlS.forEach((gapS, i) => {
        const sent = t.eventSentAtMs[i + 1]! - t.eventSentAtMs[i]!
        itlErrors.push(Math.abs(gapS * 1000 - sent))
      })
    }
    return {
      concurrency,
      requests,
      cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / requests,
      userCpuMsPerRequest: cpu.user / 1000 / requests,
      requestsPerS: requests / (wallMs / 1000),
      ttftErrorMs: { median: percentile(ttftErrors, 50), p99: percentile(ttftErrors, 99) },
      itlErrorMs: { median: percentile(itlErrors, 50), p99: percentile(itlErrors, 99) },
      loadAverage1m: (await import('node:os')).loadavg()[0]!,
    }
  } finally {
    await sim.stop()
  }
}

async function startSimProcess(args: string[]): Promise<{ url: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['bin/servebench.js', 'sim', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
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
