/**
 * Simulator capacity (run by `npm run perf`): N concurrent streams against one simulator, with the
 * client in a separate process, and how late the simulator's steps ran against its own schedule.
 * Every sequence runs at once (maxNumSeqs above N), so one step writes N events.
 */
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { startSimulator } from '../src/sim/server.ts'

export interface SimCapacity {
  streams: number
  outputTokens: number
  /** The configured step time with every stream decoding. */
  modelStepMs: number
  stepLagMeanMs: number
  stepLagMaxMs: number
  /** Mean lag over the last 128 steps (the steady state, after the arrival burst). */
  stepLagRecentMeanMs: number
  /** Generation tokens per second, from the first to the last token. */
  tokensPerS: number
  /** What the model allows: streams / step time. */
  modelTokensPerS: number
  /** Share of the simulator's wall time its event loop was busy. */
  eventLoopUtilization: number
  /** Events the client counted (tokens + usage-less [DONE]), a check that nothing was lost. */
  clientEvents: number
  loadAverage1m: number
}

const CLIENT = fileURLToPath(new URL('./sim-capacity-client.ts', import.meta.url))
const DECODE_BASE_MS = 10
const DECODE_MS_PER_SEQ = 0.05

export async function measureSimCapacity(streams: number, outputTokens = 100): Promise<SimCapacity> {
  const sim = await startSimulator({
    maxNumSeqs: 8192,
    maxNumBatchedTokens: 1 << 20,
    decodeBaseMs: DECODE_BASE_MS,
    decodeMsPerSeq: DECODE_MS_PER_SEQ,
    prefillMsPerToken: 0.0005,
  })
  try {
    const elu = performance.eventLoopUtilization()
    let firstTokenAtMs = 0
    let lastTokenAtMs = 0
    let tokens = 0
    // Sample the token counter instead of hooking the engine: the run's own cost stays as it is.
    const sampler = setInterval(() => {
      const now = sim.stats().generationTokensTotal
      if (now > tokens && firstTokenAtMs === 0) firstTokenAtMs = performance.now()
      if (now > tokens) lastTokenAtMs = performance.now()
      tokens = now
    }, 5)
    const out = await runClient(sim.url, streams, outputTokens)
    clearInterval(sampler)
    const used = performance.eventLoopUtilization(elu)
    const lag = sim.stats().stepLag
    const stats = sim.stats()
    const modelStepMs = DECODE_BASE_MS + DECODE_MS_PER_SEQ * streams
    return {
      streams,
      outputTokens,
      modelStepMs,
      stepLagMeanMs: lag.meanMs,
      stepLagMaxMs: lag.maxMs,
      stepLagRecentMeanMs: lag.recentMeanMs,
      tokensPerS: stats.generationTokensTotal / ((lastTokenAtMs - firstTokenAtMs) / 1000),
      modelTokensPerS: streams / (modelStepMs / 1000),
      eventLoopUtilization: used.utilization,
      clientEvents: out.events,
      loadAverage1m: loadavg()[0]!,
    }
  } finally {
    await sim.close()
  }
}

function runClient(url: string, streams: number, outputTokens: number): Promise<{ events: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLIENT, url, String(streams), String(outputTokens)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`capacity client exited with ${code}`))
      else resolve(JSON.parse(out) as { events: number })
    })
  })
}
