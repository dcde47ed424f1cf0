/**
 * `npm run perf -- split`: is the client's cost per event or per request? servebench and the
 * node:net floor (framing only, one `onread` buffer) send the same streams at two lengths, short
 * and long; the CPU a request gains per extra token is the cost of an event, and what is left at
 * the short length is the cost of a request (with the run's own fixed cost, the JIT's warm-up and
 * the metrics, spread over its requests). Each run is a fresh process; the two lengths alternate
 * their order from pair to pair. `SPLIT_PAIRS` sets the pairs (3 by default).
 */
import { median } from '../src/metrics/percentile.ts'
import { measureClientOverheadFresh } from './client-overhead.ts'
import { countFromEnv } from './env-count.ts'

const CONCURRENCY = 100
const REQUESTS = 1_000
const SHORT_TOKENS = 16
const LONG_TOKENS = 256
const DEFAULT_PAIRS = 3

/** CPU per request, ms, of servebench and of the floor at one stream length. */
interface LengthCost {
  servebenchMs: number
  floorMs: number
}

/** One pair: both lengths, and the split they give. */
export interface SplitPair {
  shortFirst: boolean
  short: LengthCost
  long: LengthCost
  /** CPU per extra event, µs. */
  perEventUs: { servebench: number; floor: number }
  /** CPU per request less its events, ms. */
  perRequestMs: { servebench: number; floor: number }
}

async function measureLength(outputTokens: number): Promise<LengthCost> {
  const r = await measureClientOverheadFresh(CONCURRENCY, REQUESTS, { outputTokens, floorKinds: ['lean'] })
  return { servebenchMs: r.cpuMsPerRequest, floorMs: r.floor[0]!.cpuMsPerRequest }
}

function split(shortFirst: boolean, short: LengthCost, long: LengthCost): SplitPair {
  const perEventMs = (pick: (c: LengthCost) => number): number =>
    (pick(long) - pick(short)) / (LONG_TOKENS - SHORT_TOKENS)
  const servebenchEventMs = perEventMs((c) => c.servebenchMs)
  const floorEventMs = perEventMs((c) => c.floorMs)
  return {
    shortFirst,
    short,
    long,
    perEventUs: { servebench: servebenchEventMs * 1000, floor: floorEventMs * 1000 },
    perRequestMs: {
      servebench: short.servebenchMs - SHORT_TOKENS * servebenchEventMs,
      floor: short.floorMs - SHORT_TOKENS * floorEventMs,
    },
  }
}

export async function printCostSplit(): Promise<void> {
  const pairs = countFromEnv('SPLIT_PAIRS', DEFAULT_PAIRS)
  console.log(
    `cost per event and per request: ${REQUESTS.toLocaleString('en')} streams of ${SHORT_TOKENS} and of ${LONG_TOKENS} tokens at concurrency ${CONCURRENCY}, ITL 20 ms, servebench (lean) and the node:net floor; ${pairs} pair${pairs > 1 ? 's' : ''}, each run a fresh process`,
  )
  const done: SplitPair[] = []
  for (let i = 0; i < pairs; i++) {
    const shortFirst = i % 2 === 0
    const first = await measureLength(shortFirst ? SHORT_TOKENS : LONG_TOKENS)
    const second = await measureLength(shortFirst ? LONG_TOKENS : SHORT_TOKENS)
    const pair = shortFirst ? split(true, first, second) : split(false, second, first)
    done.push(pair)
    const ms = (c: LengthCost): string => `${c.servebenchMs.toFixed(3)} / ${c.floorMs.toFixed(3)} ms`
    console.log(
      `  pair ${i + 1}: CPU per request, servebench / floor: ${SHORT_TOKENS} tokens ${ms(pair.short)}, ${LONG_TOKENS} tokens ${ms(pair.long)}; ` +
        `per event ${pair.perEventUs.servebench.toFixed(1)} / ${pair.perEventUs.floor.toFixed(1)} µs, ` +
        `per request ${pair.perRequestMs.servebench.toFixed(3)} / ${pair.perRequestMs.floor.toFixed(3)} ms`,
    )
  }
  const of = (pick: (p: SplitPair) => number): number => median(done.map(pick))
  const summary = {
    perEventUs: { servebench: of((p) => p.perEventUs.servebench), floor: of((p) => p.perEventUs.floor) },
    perRequestMs: {
      servebench: of((p) => p.perRequestMs.servebench),
      floor: of((p) => p.perRequestMs.floor),
    },
  }
  console.log(
    `  median: per event ${summary.perEventUs.servebench.toFixed(1)} µs against the floor's ${summary.perEventUs.floor.toFixed(1)}, ` +
      `per request ${summary.perRequestMs.servebench.toFixed(3)} ms against ${summary.perRequestMs.floor.toFixed(3)}`,
  )
  console.log(
    JSON.stringify({
      perf: 'cost-split',
      concurrency: CONCURRENCY,
      requests: REQUESTS,
      pairs: done,
      ...summary,
    }),
  )
}
