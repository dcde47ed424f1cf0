/**
 * What a hostile server can make the client hold, and how long one many-`data:`-lines event takes
 * (`npm run perf -- hostile-memory`): each case runs the built CLI in a fresh process against a
 * local server that answers too much, and reports the child's peak RSS (resourceUsage().maxRSS)
 * and exit code. The cases are those of the second hardening probe: a 200 MB `/v1/models` body, an
 * endless `/tokenize` answer while prompts are fitted, and embedding answers of 50–400 MB.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSseParser } from '../src/backends/sse.ts'

const ROOT = join(import.meta.dirname, '..')
// SERVEBENCH_PERF_BIN runs another build (an older checkout's bin/servebench.js) for a before/after figure.
const BIN = process.env.SERVEBENCH_PERF_BIN ?? join(ROOT, 'bin/servebench.js')
const HOOK = join(import.meta.dirname, 'max-rss-hook.mjs')
const MIB = 1024 * 1024
/** A child past this RSS (MB) or time (ms) is killed and reported as such. */
const RSS_GUARD_MB = Number(process.env.SERVEBENCH_PERF_RSS_GUARD_MB ?? 4_000)
const CASE_TIMEOUT_MS = 180_000

/** One measured run. */
export interface HostileCase {
  name: string
  code: number | null
  maxRssMb: number
  seconds: number
  /** The first line that names what stopped it (stderr, else the first error of the run). */
  said: string
}

type Answer = (request: IncomingMessage, response: ServerResponse) => void

/** Writes `total` bytes of `piece` (or forever) at the pace the client reads. */
function stream(response: ServerResponse, piece: string, total = Number.POSITIVE_INFINITY, end = ''): void {
  let sent = 0
  const write = (): void => {
    while (!response.destroyed && sent < total) {
      sent += piece.length
      if (!response.write(piece)) return void response.once('drain', write)
    }
    if (!response.destroyed) response.end(end)
  }
  response.on('close', () => response.removeAllListeners('drain'))
  write()
}

/** A short completion stream, so a run whose prompts were not fitted still runs. */
function completion(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' })
  response.end('data: {"choices":[{"text":"hi"}]}\n\ndata: [DONE]\n\n')
}

const BASE_FLAGS = ['--tokenizer', 'cl100k_base', '--random-input-len', '64', '--random-output-len', '4']

const CASES: Array<{ name: string; answer: Answer; flags: string[] }> = [
  {
    name: '200 MB /v1/models body',
    answer: (request, response) => {
      if (request.url !== '/v1/models') return completion(response)
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"data":[{"id":"')
      stream(response, 'x'.repeat(64 * 1024), 200 * MIB, '"}]}')
    },
    flags: [...BASE_FLAGS, '--num-prompts', '4'],
  },
  {
    name: 'endless /tokenize answer',
    answer: (request, response) => {
      if (request.url !== '/tokenize') return completion(response)
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"tokens":[')
      stream(response, '12345, '.repeat(8 * 1024))
    },
    flags: ['--model', 'm', ...BASE_FLAGS, '--num-prompts', '64'],
  },
  ...[50, 100, 200, 400].map((mb) => ({
    name: `${mb} MB embedding answers, 4 at once`,
    answer: ((request, response) => {
      if (!request.url?.startsWith('/v1/embeddings')) return void response.writeHead(404).end()
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"data":[{"embedding":[')
      stream(response, '0.0123456789,'.repeat(5_000), mb * 1_000_000, '0]}],"usage":{"prompt_tokens":8}}')
    }) as Answer,
    flags: [
      '--model',
      'm',
      '--backend',
      'openai-embeddings',
      ...BASE_FLAGS.slice(0, 4),
      '--num-prompts',
      '4',
    ],
  })),
]

/** Runs every case and prints one line each, then the SSE timing. */
export async function printHostileMemory(): Promise<void> {
  console.log('hostile server: peak RSS of the client (a fresh process per case, built CLI)')
  for (const c of CASES) {
    const r = await runCase(c.name, c.answer, c.flags)
    console.log(
      `  ${r.name}: peak RSS ${r.maxRssMb.toFixed(0)} MB, exit ${r.code}, ${r.seconds.toFixed(1)} s — ${r.said}`,
    )
    console.log(JSON.stringify({ perf: 'hostile-memory', ...r }))
  }
  console.log(
    'one SSE event of many data: lines and no blank line, fed in 1 KiB chunks to a parser whose event limit is its size',
  )
  for (const mib of [2, 4, 16]) {
    const r = manyDataLines(mib)
    console.log(
      `  ${mib} MiB limit: ${r.rejected ? 'rejected' : 'NOT rejected'} after ${(r.fedBytes / MIB).toFixed(1)} MiB fed, ${r.seconds.toFixed(3)} s (${((r.seconds / mib) * 1000).toFixed(1)} ms per MiB): ${r.rejected ?? ''}`,
    )
    console.log(JSON.stringify({ perf: 'sse-many-data-lines', mib, ...r }))
  }
}

/**
 * Feeds `data:` lines (1 KiB chunks, as a server writing line by line) to one parser whose event
 * limit is `mib` MiB, until it rejects the event or twice that was fed.
 */
function manyDataLines(mib: number): { seconds: number; fedBytes: number; rejected?: string } {
  const parser = createSseParser(mib * MIB)
  const chunk = Buffer.from(`data: ${'y'.repeat(120)}\n`.repeat(8))
  const startMs = performance.now()
  let rejected: string | undefined
  let fedBytes = 0
  try {
    for (; fedBytes < 2 * mib * MIB; fedBytes += chunk.length) parser.push(chunk)
  } catch (error) {
    rejected = (error as Error).message.slice(0, 90)
  }
  return { seconds: (performance.now() - startMs) / 1000, fedBytes, ...(rejected ? { rejected } : {}) }
}

async function runCase(name: string, answer: Answer, flags: string[]): Promise<HostileCase> {
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => answer(request, response))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const dir = mkdtempSync(join(tmpdir(), 'servebench-hostile-'))
  const rssFile = join(dir, 'rss')
  const startMs = performance.now()
  try {
    const { code, stderr, stdout } = await new Promise<{
      code: number | null
      stderr: string
      stdout: string
    }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          HOOK,
          BIN,
          'serve',
          '--base-url',
          `http://127.0.0.1:${port}`,
          ...flags,
          '--disable-tqdm',
          '--client-check',
          'off',
        ],
        {
          cwd: dir,
          env: { ...process.env, SERVEBENCH_PERF_RSS_FILE: rssFile },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let out = ''
      let err = ''
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        out += c
      })
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        err += c
      })
      // A client without bounds (an older build) would take the machine: stopped at the guard.
      const guard = setInterval(() => {
        const rssMb = currentRssMb(child.pid)
        if (rssMb > RSS_GUARD_MB || performance.now() - startMs > CASE_TIMEOUT_MS) {
          err += `\nservebench-perf: killed at ${rssMb.toFixed(0)} MB RSS after ${((performance.now() - startMs) / 1000).toFixed(0)} s`
          child.kill('SIGKILL')
        }
      }, 100)
      child.on('close', (exit) => {
        clearInterval(guard)
        resolve({ code: exit, stderr: err, stdout: out })
      })
    })
    // The line that says what stopped the run: the first pattern that matches a line wins.
    const lines = [...stderr.split('\n'), ...stdout.split('\n')]
    const said =
      [/killed at/, /answered more than/, /^Error 0/, /exceeded/, /WARNING/, /servebench: [A-Z]/]
        .map((pattern) => lines.find((line) => pattern.test(line)))
        .find((line) => line !== undefined) ?? ''
    // A killed child wrote no figure: its last RSS reading stands for it.
    const killed = /killed at (\d+) MB/.exec(stderr)
    return {
      name,
      code,
      maxRssMb: killed ? Number(killed[1]) : Number(readFileSync(rssFile, 'utf8')) / 1024,
      seconds: (performance.now() - startMs) / 1000,
      said: said.slice(0, 160),
    }
  } finally {
    server.closeAllConnections()
    server.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The RSS of a process in MB (Linux `/proc`), or 0 where it cannot be read. */
function currentRssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1]
    return kb === undefined ? 0 : Number(kb) / 1024
  } catch {
    return 0
  }
}
