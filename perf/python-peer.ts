/**
 * servebench beside the Python peer client (perf/python-peer.py, written like vLLM's request
 * function, run with Debian's python3-aiohttp), on one workload against the simulator in its own
 * process: whole-process CPU of each (start-up included, from /usr/bin/time) and the ITL timestamp
 * error of each against the simulator's send stamps. Run: `npm run perf -- python`.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { percentile } from '../src/metrics/percentile.ts'
import { startSimProcess } from './client-overhead.ts'

const OUTPUT_TOKENS = 64

export interface PeerFigures {
  /** User + system CPU of the whole process, seconds (/usr/bin/time). */
  cpuS: number
  itlErrorMs: { median: number; p99: number }
}

interface SimTiming {
  requestId: string
  eventSentAtMs: number[]
}

/** Runs `argv` under /usr/bin/time; resolves with its stdout and its user + system seconds. */
function timed(argv: string[]): Promise<{ stdout: string; cpuS: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', 'CPU %U %S', ...argv], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c
    })
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c
    })
    child.on('close', (code) => {
      const m = /CPU (\S+) (\S+)\s*$/.exec(stderr)
      if (code !== 0 || !m) reject(new Error(`${argv.join(' ')} failed (${code}): ${stderr.slice(-500)}`))
      else resolve({ stdout, cpuS: Number(m[1]) + Number(m[2]) })
    })
  })
}

/** ITL errors, ms: each measured gap against the gap between the simulator's two send stamps. */
async function itlErrors(
  simUrl: string,
  itls: ReadonlyMap<string, readonly number[]>,
): Promise<PeerFigures['itlErrorMs']> {
  const timings = (await (await request(`${simUrl}/servebench/timings`)).body.json()) as SimTiming[]
  const errors: number[] = []
  for (const t of timings) {
    const gaps = itls.get(t.requestId)
    if (!gaps) continue
    gaps.forEach((gapS, i) => {
      const sent = t.eventSentAtMs
      if (i + 1 < sent.length) errors.push(Math.abs(gapS * 1000 - (sent[i + 1]! - sent[i]!)))
    })
  }
  await request(`${simUrl}/servebench/timings`, { method: 'DELETE' }).then((r) => r.body.dump())
  return { median: percentile(errors, 50), p99: percentile(errors, 99) }
}

/** The Python peer and `servebench serve` (one client thread), one after the other, on one simulator. */
export async function measurePythonPeer(
  concurrency: number,
  requests: number,
): Promise<{ python: PeerFigures; servebench: PeerFigures }> {
  const sim = await startSimProcess(['--ttft-ms', '50', '--itl-ms', '20', '--record-timings'])
  const dir = await mkdtemp(join(tmpdir(), 'servebench-peer-'))
  try {
    const py = await timed([
      '/usr/bin/python3',
      'perf/python-peer.py',
      sim.url,
      String(concurrency),
      String(requests),
      String(OUTPUT_TOKENS),
    ])
    const pyRecords = (JSON.parse(py.stdout) as { records: Array<{ id: string; itl: number[] }> }).records
    const python = {
      cpuS: py.cpuS,
      itlErrorMs: await itlErrors(sim.url, new Map(pyRecords.map((r) => [r.id, r.itl]))),
    }
    const sb = await timed([
      process.execPath,
      'bin/servebench.js',
      'serve',
      ...['--base-url', sim.url, '--model', 'm', '--tokenizer', 'cl100k_base'],
      ...['--random-input-len', '32', '--random-output-len', String(OUTPUT_TOKENS)],
      ...['--num-prompts', String(requests), '--max-concurrency', String(concurrency)],
      ...['--request-id-prefix', 'sb-', '--client-check', 'off', '--disable-tqdm'],
      ...['--save-result', '--save-detailed', '--result-dir', dir, '--result-filename', 'r.json'],
    ])
    const result = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8')) as { itls: number[][] }
    const servebench = {
      cpuS: sb.cpuS,
      itlErrorMs: await itlErrors(sim.url, new Map(result.itls.map((gaps, i) => [`sb-${i}`, gaps]))),
    }
    return { python, servebench }
  } finally {
    await sim.stop()
    await rm(dir, { recursive: true, force: true })
  }
}
