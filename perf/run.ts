/** `npm run perf`: servebench's own performance figures. Results print as a table and JSON lines. */
import { cpus, loadavg } from 'node:os'
import type { HttpTransport } from '../src/config/bench-config.ts'
import type { FloorKind } from './client-floor.ts'
import type { ClientOverhead } from './client-overhead.ts'

// Each section is loaded only when it runs: some need development dependencies (a Hugging Face
// tokenizer file), and `many-core` must run on a production install with tsx alone.
// `npm run perf -- client sim dataset dispatch threads gate self-check first-tries python split
// versus many-core hostile-memory bad-input capacity` picks sections; none given runs the first four.
const picked = process.argv.slice(2)
const OPT_IN = [
  'threads',
  'gate',
  'self-check',
  'first-tries',
  'python',
  'split',
  'versus',
  'many-core',
  'hostile-memory',
  'bad-input',
  'capacity',
]
const wants = (section: string): boolean =>
  picked.length === 0 ? !OPT_IN.includes(section) : picked.includes(section)

// The last run sends `--num-warmups 500` first, as a user measuring steady state would: its
// connections are open and its code is compiled before the clock starts, so the first wave does
// not pay for 500 connects and a cold JIT.
const FLOOR_NAMES: Record<FloorKind, string> = {
  request: 'undici request()',
  dispatch: 'undici dispatch()',
  lean: 'node:net + onread buffer',
  'lean-data': "node:net + 'data' events",
}

// The first two runs differ only in the transport of the streams (--http-transport); the third is
// sent from two client threads (--client-threads 2). Each run is a fresh process with its own
// simulator: a run in this process would start on code the runs before it compiled.
const runs: Array<
  [concurrency: number, requests: number, warmups: number, threads: number, transport: HttpTransport]
> = [
  [100, 2_000, 0, 1, 'lean'],
  [100, 2_000, 0, 1, 'undici'],
  [100, 2_000, 0, 2, 'lean'],
  [500, 5_000, 0, 1, 'lean'],
  [500, 5_000, 500, 1, 'lean'],
]

console.log(
  `servebench perf — ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), load ${loadavg()[0]!.toFixed(2)}`,
)
// `CLIENT_ROUNDS=3` repeats the runs (the order reversed in every other round) and prints each
// run's medians after them: one run's figures move by ±15% on a shared machine.
const { countFromEnv } = await import('./env-count.ts')
const clientRounds = wants('client') ? countFromEnv('CLIENT_ROUNDS', 1) : 0
if (wants('client'))
  console.log(
    `client overhead: 64-token streams, simulator TTFT 50 ms, ITL 20 ms, in a separate process${clientRounds > 1 ? `; ${clientRounds} rounds` : ''}`,
  )
const measured: ClientOverhead[][] = runs.map(() => [])
for (let round = 0; round < clientRounds; round++) {
  if (clientRounds > 1) console.log(`  round ${round + 1}`)
  const order = runs.map((_, i) => i)
  if (round % 2 === 1) order.reverse()
  for (const i of order) measured[i]!.push(await printClientRun(runs[i]!))
}
if (clientRounds > 1) {
  console.log(`  medians of the ${clientRounds} rounds (range):`)
  for (const [i, run] of runs.entries()) await printClientMedians(run, measured[i]!)
}

if (wants('sim'))
  console.log('simulator capacity: 100-token streams, all decoding at once, client in a separate process')
for (const streams of wants('sim') ? [500, 1_000, 2_000] : []) {
  const { measureSimCapacity } = await import('./sim-capacity.ts')
  const r = await measureSimCapacity(streams)
  console.log(
    `  ${String(streams).padStart(5)} streams: step ${r.modelStepMs.toFixed(0)} ms, lag mean ${r.stepLagMeanMs.toFixed(1)} ms max ${r.stepLagMaxMs.toFixed(0)} ms, ` +
      `${r.tokensPerS.toFixed(0)} tok/s of ${r.modelTokensPerS.toFixed(0)}, event loop ${(r.eventLoopUtilization * 100).toFixed(0)}% busy (load ${r.loadAverage1m.toFixed(2)})`,
  )
  console.log(JSON.stringify({ perf: 'sim-capacity', ...r }))
}
if (wants('dataset')) await (await import('./dataset-generation.ts')).printDatasetGeneration()
if (wants('dispatch')) (await import('./dispatch-queue.ts')).printDispatchQueue()
if (wants('threads')) {
  console.log(
    'plain undici from worker threads, pool warmed: does a second client thread cut the c=500 tail?',
  )
  await (await import('./client-threads.ts')).measureClientThreads(500, 5_000, [1, 2, 1, 2], { warm: true })
}
if (wants('gate')) await (await import('./gate.ts')).measureGate()
if (wants('self-check')) await (await import('./self-check.ts')).measureSelfCheck()
if (wants('first-tries')) await (await import('./first-tries.ts')).printFirstTries()
if (wants('python')) await (await import('./python-peer.ts')).printPythonPeer()
if (wants('split')) await (await import('./cost-split.ts')).printCostSplit()
if (wants('versus')) await (await import('./versus.ts')).printVersus()
// Loaded only when asked for: it also runs alone (`node --import tsx perf/many-core.ts`).
if (wants('many-core')) await (await import('./many-core.ts')).printManyCore()
if (wants('hostile-memory')) await (await import('./hostile-memory.ts')).printHostileMemory()
if (wants('bad-input')) await (await import('./bad-input.ts')).printBadInput()
if (wants('capacity')) await (await import('./capacity.ts')).printCapacity()

type ClientRun = (typeof runs)[number]

function describeRun([concurrency, , warmups, threads, transport]: ClientRun): string {
  return `concurrency ${String(concurrency).padStart(4)}${warmups > 0 ? `, after ${warmups} warm-ups` : ''}, ${threads} client thread${threads > 1 ? 's' : ''}, ${transport}`
}

/** One run in a fresh process, printed as it ends. */
async function printClientRun(run: ClientRun): Promise<ClientOverhead> {
  const [concurrency, requests, warmups, threads, transport] = run
  const { measureClientOverheadFresh, OUTPUT_TOKENS } = await import('./client-overhead.ts')
  const r = await measureClientOverheadFresh(concurrency, requests, {
    warmups,
    floor: warmups === 0 && threads === 1 && transport === 'lean',
    clientThreads: threads,
    transport,
  })
  const main =
    r.mainThreadCpuMsPerRequest === undefined
      ? ''
      : `, ${r.mainThreadCpuMsPerRequest.toFixed(3)} on the main thread`
  const pair = (x: { median: number; p99: number }): string =>
    `median ${x.median.toFixed(3)} p99 ${x.p99.toFixed(3)} ms`
  console.log(
    `  ${describeRun(run)}: ` +
      `${r.cpuMsPerRequest.toFixed(3)} ms CPU/request (${r.userCpuMsPerRequest.toFixed(3)} user${main}), ${r.eventsPerCpuS.toFixed(0)} events/CPU-s, ${r.requestsPerS.toFixed(0)} req/s, ` +
      `TTFT error ${pair(r.ttftErrorMs)}, ITL error ${pair(r.itlErrorMs)} (load ${r.loadAverage1m.toFixed(2)})`,
  )
  console.log(
    `    event-loop delay p50 ${r.eventLoopDelayMs.p50.toFixed(1)} p99 ${r.eventLoopDelayMs.p99.toFixed(1)} max ${r.eventLoopDelayMs.max.toFixed(1)} ms; ` +
      `GC ${r.gc.count} pauses, ${r.gc.totalMs.toFixed(0)} ms total, max ${r.gc.maxMs.toFixed(1)} ms`,
  )
  for (const f of r.floor) {
    console.log(
      `    floor, ${FLOOR_NAMES[f.kind]} with no parsing: ${f.cpuMsPerRequest.toFixed(3)} ms CPU/request (${f.userCpuMsPerRequest.toFixed(3)} user), ${((OUTPUT_TOKENS * 1000) / f.cpuMsPerRequest).toFixed(0)} events/CPU-s`,
    )
  }
  console.log(JSON.stringify({ perf: 'client-overhead', warmups, threads, ...r }))
  return r
}

/** One run's medians over the rounds, and its floors'. */
async function printClientMedians(run: ClientRun, results: readonly ClientOverhead[]): Promise<void> {
  const { median } = await import('../src/metrics/percentile.ts')
  const { FLOOR_KINDS } = await import('./client-floor.ts')
  const spread = (values: number[], digits: number): string =>
    `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`
  console.log(
    `  ${describeRun(run)}: ${spread(
      results.map((r) => r.cpuMsPerRequest),
      3,
    )} ms CPU/request, ${spread(
      results.map((r) => r.eventsPerCpuS),
      0,
    )} events/CPU-s, TTFT error p99 ${spread(
      results.map((r) => r.ttftErrorMs.p99),
      1,
    )} ms, ITL error p99 ${spread(
      results.map((r) => r.itlErrorMs.p99),
      1,
    )} ms`,
  )
  for (const kind of FLOOR_KINDS) {
    const floors = results.flatMap((r) =>
      r.floor.filter((f) => f.kind === kind).map((f) => f.cpuMsPerRequest),
    )
    if (floors.length > 0) console.log(`    floor, ${FLOOR_NAMES[kind]}: ${spread(floors, 3)} ms CPU/request`)
  }
}
