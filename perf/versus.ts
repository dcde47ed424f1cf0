/**
 * `npm run perf -- versus`: this checkout's client against an earlier commit's, measured the same
 * way in one run, so a speed-up is a ratio of two figures from the same machine at the same time
 * instead of a figure against one written down on another day. The earlier commit is checked out
 * in a temporary git worktree and given this checkout's measurement (client-overhead.ts and the
 * modules it imports); both send to this checkout's simulator (`bin/servebench.js` from the
 * working directory). Each run is a fresh process, the two alternate their order from pair to
 * pair, and the figure is the ratio of the medians. This checkout's runs also measure the node:net
 * floor (client-floor.ts: a socket that only finds the HTTP/1.1 framing) after their own; its ratio
 * against the earlier commit is what a Node client that does nothing with the bytes reaches here.
 *
 * `VERSUS_REV` picks the commit (a commit from 83e289f on has the entry points the measurement
 * imports); `VERSUS_PAIRS` the pairs (3 by default).
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median } from '../src/metrics/percentile.ts'
import { type ClientOverhead, measureClientOverheadFresh, OUTPUT_TOKENS } from './client-overhead.ts'
import { countFromEnv } from './env-count.ts'

/**
 * main before the client threads and the lean transport: the client whose 2.28 ms per request the
 * scaling work set out to halve.
 */
const DEFAULT_REV = '83e289f'
const CONCURRENCY = 100
const REQUESTS = 2_000
const DEFAULT_PAIRS = 3
const PERF_DIR = dirname(fileURLToPath(import.meta.url))
const REPO_ROOT = resolve(PERF_DIR, '..')
/** The measurement and what it imports from perf/; its imports from src/ resolve in the worktree. */
const MEASUREMENT_FILES = [
  'client-overhead-fresh.ts',
  'client-overhead.ts',
  'client-floor.ts',
  'child-process.ts',
]

const git = (...args: string[]): string =>
  execFileSync('git', ['-C', REPO_ROOT, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

/** Throws, naming `VERSUS_REV`, unless `rev` is a commit here. */
function checkCommit(rev: string): void {
  try {
    git('rev-parse', '--verify', '--quiet', `${rev}^{commit}`)
  } catch {
    throw new Error(`VERSUS_REV ${JSON.stringify(rev)} is not a commit of this repository`)
  }
}

/** A worktree of `rev` with this checkout's measurement in its perf/ and its node_modules. */
function checkOut(rev: string): { entry: string; remove(): void } {
  const dir = join(mkdtempSync(join(tmpdir(), 'servebench-versus-')), 'tree')
  const remove = (): void => {
    git('worktree', 'remove', '--force', dir)
    rmSync(dirname(dir), { recursive: true, force: true })
  }
  try {
    git('worktree', 'add', '--detach', dir, rev)
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
    for (const file of MEASUREMENT_FILES) copyFileSync(join(PERF_DIR, file), join(dir, 'perf', file))
  } catch (error) {
    rmSync(dirname(dir), { recursive: true, force: true })
    git('worktree', 'prune')
    throw error
  }
  return { entry: join(dir, 'perf', 'client-overhead-fresh.ts'), remove }
}

export async function printVersus(): Promise<void> {
  const rev = process.env.VERSUS_REV || DEFAULT_REV
  const pairs = countFromEnv('VERSUS_PAIRS', DEFAULT_PAIRS)
  checkCommit(rev)
  // Uncommitted changes are measured too, so `VERSUS_REV=HEAD` times a change before it is committed.
  const head = git('describe', '--always', '--dirty').trim()
  console.log(
    `this checkout (${head}) against ${rev}: ${REQUESTS.toLocaleString('en')} ${OUTPUT_TOKENS}-token streams at concurrency ${CONCURRENCY}, ` +
      `default transport, one client thread; ${pairs} pair${pairs > 1 ? 's' : ''}, each run a fresh process, the node:net floor after each of this checkout's runs`,
  )
  // Ctrl-C ends the process before `finally` runs: the worktree would stay registered with git. A
  // signal that comes while the worktree is being made is handled once that returns.
  let earlier: ReturnType<typeof checkOut> | undefined
  const interrupted = (): void => {
    earlier?.remove()
    process.exit(130)
  }
  process.once('SIGINT', interrupted)
  const runs: Record<'earlier' | 'current', ClientOverhead[]> = { earlier: [], current: [] }
  try {
    earlier = checkOut(rev)
    for (let i = 0; i < pairs; i++) {
      const order: Array<'earlier' | 'current'> =
        i % 2 === 0 ? ['earlier', 'current'] : ['current', 'earlier']
      for (const side of order) {
        const r =
          side === 'earlier'
            ? await measureClientOverheadFresh(CONCURRENCY, REQUESTS, { floor: false }, earlier.entry)
            : await measureClientOverheadFresh(CONCURRENCY, REQUESTS, { floorKinds: ['lean'] })
        runs[side].push(r)
        const floor = r.floor[0]
        console.log(
          `  pair ${i + 1}, ${side === 'earlier' ? rev : head}: ${r.cpuMsPerRequest.toFixed(3)} ms CPU/request (${r.userCpuMsPerRequest.toFixed(3)} user), ` +
            `${r.eventsPerCpuS.toFixed(0)} events/CPU-s, ITL error p99 ${r.itlErrorMs.p99.toFixed(2)} ms` +
            (floor === undefined
              ? ''
              : `; floor ${floor.cpuMsPerRequest.toFixed(3)} ms (${floor.userCpuMsPerRequest.toFixed(3)} user)`) +
            ` (load ${r.loadAverage1m.toFixed(2)})`,
        )
      }
    }
  } finally {
    process.off('SIGINT', interrupted)
    earlier?.remove()
  }
  const medianOf = (side: 'earlier' | 'current', pick: (r: ClientOverhead) => number): number =>
    median(runs[side].map(pick))
  const summary = {
    earlierCpuMsPerRequest: medianOf('earlier', (r) => r.cpuMsPerRequest),
    currentCpuMsPerRequest: medianOf('current', (r) => r.cpuMsPerRequest),
    earlierUserCpuMsPerRequest: medianOf('earlier', (r) => r.userCpuMsPerRequest),
    currentUserCpuMsPerRequest: medianOf('current', (r) => r.userCpuMsPerRequest),
    earlierEventsPerCpuS: medianOf('earlier', (r) => r.eventsPerCpuS),
    currentEventsPerCpuS: medianOf('current', (r) => r.eventsPerCpuS),
    floorCpuMsPerRequest: medianOf('current', (r) => r.floor[0]!.cpuMsPerRequest),
    floorUserCpuMsPerRequest: medianOf('current', (r) => r.floor[0]!.userCpuMsPerRequest),
  }
  const ratio = summary.currentEventsPerCpuS / summary.earlierEventsPerCpuS
  // The floor sends the same streams: one event per output token, as servebench counts them.
  const floorEventsPerCpuS = OUTPUT_TOKENS / (summary.floorCpuMsPerRequest / 1000)
  const floorRatio = floorEventsPerCpuS / summary.earlierEventsPerCpuS
  console.log(
    `  medians: ${rev} ${summary.earlierCpuMsPerRequest.toFixed(3)} ms CPU/request (${summary.earlierEventsPerCpuS.toFixed(0)} events/CPU-s), ` +
      `${head} ${summary.currentCpuMsPerRequest.toFixed(3)} ms (${summary.currentEventsPerCpuS.toFixed(0)}): ${ratio.toFixed(2)}× the events per CPU-second`,
  )
  // The kernel's share (socket reads and polls) is close to a floor that any client pays; the
  // user-space share is where two clients differ.
  console.log(
    `  user space: ${rev} ${summary.earlierUserCpuMsPerRequest.toFixed(3)} ms/request, ${head} ${summary.currentUserCpuMsPerRequest.toFixed(3)} ms ` +
      `(${(summary.earlierUserCpuMsPerRequest / summary.currentUserCpuMsPerRequest).toFixed(2)}× less)`,
  )
  console.log(
    `  node:net floor: ${summary.floorCpuMsPerRequest.toFixed(3)} ms CPU/request (${summary.floorUserCpuMsPerRequest.toFixed(3)} user, ` +
      `${floorEventsPerCpuS.toFixed(0)} events/CPU-s): ${floorRatio.toFixed(2)}× ${rev}'s events per CPU-second, with nothing done with the bytes`,
  )
  const brief = (r: ClientOverhead) => ({
    cpuMsPerRequest: r.cpuMsPerRequest,
    userCpuMsPerRequest: r.userCpuMsPerRequest,
    eventsPerCpuS: r.eventsPerCpuS,
    itlErrorP99Ms: r.itlErrorMs.p99,
    ...(r.floor[0] === undefined ? {} : { floorCpuMsPerRequest: r.floor[0].cpuMsPerRequest }),
  })
  console.log(
    JSON.stringify({
      perf: 'versus',
      rev,
      head,
      ...summary,
      ratio,
      floorEventsPerCpuS,
      floorRatio,
      runs: { earlier: runs.earlier.map(brief), current: runs.current.map(brief) },
    }),
  )
}
