/**
 * The runner's own cost per request, without the network: the measure stage (each request copied
 * with its signal, sent behind the concurrency limit, its output made a record) over a backend that
 * answers at once, and the metrics over those records. What the stage adds to every request of a
 * real run, and what makes the objects the metrics read. Run: `npm run perf:micro`.
 */
import { bench, describe } from 'vitest'
import { getBackend } from '../../src/backends/index.ts'
import { pendingOutput } from '../../src/backends/stream-request.ts'
import type { BackendRequest } from '../../src/backends/types.ts'
import { defaultBenchConfig } from '../../src/config/defaults.ts'
import type { RequestRecord } from '../../src/config/records.ts'
import { measureRequests } from '../../src/runner/measure.ts'
import type { PreparedRequests } from '../../src/runner/prepare.ts'
import { noRetries } from '../../src/runner/retry.ts'
import { runMetrics } from './run-metrics.ts'

const REQUESTS = 2_000
const TOKENS = 64

const request = (i: number): BackendRequest => ({
  url: 'http://127.0.0.1:8000/v1/completions',
  requestId: `bench-${i}`,
  model: 'servebench/sim-model',
  prompt: Array.from({ length: 32 }, (_, j) => 1000 + j),
  promptLen: 32,
  outputLen: TOKENS,
  ignoreEos: true,
  extraBody: {},
  headers: {},
})

// A backend that answers at once with a whole 64-token output, reading the request's fields as a
// real one does.
const backend = {
  ...getBackend('openai'),
  send: async (req: BackendRequest) => {
    const output = pendingOutput(req)
    output.startTimeS = performance.now() / 1000 + req.requestId.length * 1e-6
    output.ttftS = 0.05 + req.outputLen * 1e-4
    for (let k = 1; k < req.outputLen; k++) output.itlS.push(0.02 + (k % 5) * 1e-4)
    output.latencyS = output.ttftS + 0.02 * (req.outputLen - 1)
    output.outputTokens = req.outputLen
    output.success = req.signal?.aborted !== true
    return output
  },
}

const config = defaultBenchConfig()
config.numPrompts = REQUESTS
config.load.maxConcurrency = 100
config.clientCheck = 'off'

const plan = {
  kind: 'requests',
  config,
  task: 'generation',
  backend,
  // The backend above sends nothing.
  client: undefined as never,
  requests: Array.from({ length: REQUESTS }, (_, i) => ({ offsetS: 0, request: request(i) })),
  ratesPerS: [],
  openLoop: true,
  modelId: 'servebench/sim-model',
  tokenizerId: null,
  secrets: [],
  sendProbe: () => Promise.reject(new Error('no probe in this benchmark')),
  retries: noRetries(),
  log: () => {},
  close: async () => {},
} satisfies PreparedRequests

let records: RequestRecord[] = []

describe(`the measure stage, ${REQUESTS.toLocaleString('en')} requests answered at once`, () => {
  bench('send, dispatch and record every request', async () => {
    records = (await measureRequests(plan)).records
  })
})

describe(`the metrics over those ${REQUESTS.toLocaleString('en')} records`, () => {
  bench(
    'calculateMetrics (ttft, tpot, itl, e2el)',
    () => {
      runMetrics(records)
    },
    {
      setup: async () => {
        if (records.length === 0) records = (await measureRequests(plan)).records
      },
    },
  )
})
