/**
 * The runs of `npm run perf -- self-check`: every combination of run length, concurrency, loop,
 * transport, client threads, machine condition and true ITL, and the seeded fraction of them
 * that one invocation runs (`SELF_CHECK_CELLS`). Pure.
 */
import type { HttpTransport } from '../src/config/bench-config.ts'
import { createRng } from '../src/rng.ts'

export type Condition = 'idle' | 'busy' | 'blocked'

/** One run of the matrix. */
export interface Cell {
  /** Target length of the timed run, seconds. */
  lengthS: number
  concurrency: number
  loop: 'open' | 'closed'
  transport: Extract<HttpTransport, 'lean' | 'undici'>
  threads: number
  condition: Condition
  /** The simulator's ITL, ms (TTFT is {@link TTFT_MS}). */
  itlMs: number
  /** `blocked`: the client's main thread busy-waits this long every {@link BLOCK_EVERY_MS}. */
  blockMs: number
}

/** The run's shape, sized from the cell. */
export interface CellPlan {
  requests: number
  outputTokens: number
  /** Open loops: requests per second. */
  rate?: number
}

export const LENGTHS_S = [0.05, 1, 5, 30]
export const CONCURRENCIES = [1, 10, 100, 1_000]
export const CONDITIONS: Condition[] = ['idle', 'busy', 'blocked']
export const ITLS_MS = [2, 20]
export const TTFT_MS = 20
export const BLOCK_EVERY_MS = 40
/** Blocks of the `blocked` condition, mild to severe: under, near and far past the limits. */
export const BLOCKS_MS = [3, 10, 30]
/** At most this many streamed events per run: the 2-core machine must finish the matrix. */
export const MAX_EVENTS = 200_000

/** Every cell, in a fixed order. */
export function allCells(): Cell[] {
  const cells: Cell[] = []
  let k = 0
  for (const lengthS of LENGTHS_S)
    for (const concurrency of CONCURRENCIES)
      for (const loop of ['open', 'closed'] as const)
        for (const transport of ['lean', 'undici'] as const)
          for (const threads of [1, 2])
            for (const condition of CONDITIONS)
              for (const itlMs of ITLS_MS) {
                cells.push({
                  lengthS,
                  concurrency,
                  loop,
                  transport,
                  threads,
                  condition,
                  itlMs,
                  blockMs: condition === 'blocked' ? BLOCKS_MS[k++ % BLOCKS_MS.length]! : 0,
                })
              }
  return cells
}

/**
 * `count` cells drawn without replacement (seeded), then ordered so that the machine condition
 * and the simulator change as rarely as possible; `all` (or a count at least the matrix's) is the
 * whole matrix.
 */
export function pickCells(count: number, seed = 27): Cell[] {
  const cells = createRng(seed).shuffle(allCells())
  const picked = cells.slice(0, Math.min(count, cells.length))
  const order = (c: Cell): number => CONDITIONS.indexOf(c.condition) * 100 + ITLS_MS.indexOf(c.itlMs)
  return picked.sort((a, b) => order(a) - order(b))
}

/** Sizes a run: streams long enough for the target length, and no more events than the machine can take. */
export function planCell(cell: Cell): CellPlan {
  // Tens of milliseconds: a handful of tokens; else 64-token streams.
  const outputTokens =
    cell.lengthS < 0.5 ? Math.max(4, Math.floor((cell.lengthS * 1000 - TTFT_MS) / cell.itlMs)) : 64
  const e2elS = (TTFT_MS + cell.itlMs * (outputTokens - 1)) / 1000
  const cap = Math.max(cell.concurrency, Math.floor(MAX_EVENTS / outputTokens))
  if (cell.loop === 'closed') {
    const waves = Math.max(1, Math.round(cell.lengthS / e2elS))
    return { requests: Math.min(cap, cell.concurrency * waves), outputTokens }
  }
  // About `concurrency` streams in flight: the arrival rate times the stream's length.
  const rate = cell.concurrency / e2elS
  return {
    requests: Math.min(cap, Math.max(cell.concurrency, Math.round(rate * cell.lengthS))),
    outputTokens,
    rate,
  }
}

export function describeCell(c: Cell): string {
  const length = c.lengthS < 1 ? `${c.lengthS * 1000} ms` : `${c.lengthS} s`
  const block = c.condition === 'blocked' ? ` ${c.blockMs}/${BLOCK_EVERY_MS} ms` : ''
  return `${length.padStart(6)} c=${String(c.concurrency).padEnd(4)} ${c.loop.padEnd(6)} ${c.transport.padEnd(6)} ${c.threads}t ITL ${String(c.itlMs).padStart(2)} ms ${c.condition}${block}`
}
