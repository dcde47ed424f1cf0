import { type ChildProcess, spawn } from 'node:child_process'
import { readdir, readFile, stat } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { join } from 'node:path'
import { expect } from 'vitest'
import { validateResultFile } from '../../src/report/result/schema/index.ts'
import { BIN, ROOT } from '../helpers.ts'

/** A spawned `servebench serve` whose output can be awaited line by line. */
export interface LiveCli {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  /** Resolves once stdout or stderr matches `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>
  /** `process.kill(pid, signal)` and the time it was sent (`performance.now()`). */
  kill(signal: NodeJS.Signals): number
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>
}

/** Runs the built binary (`npm run build` first) with `args`. */
export function spawnCli(args: string[], env: Record<string, string> = {}): LiveCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, HF_HUB_OFFLINE: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = []
  const check = (): void => {
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(out) || waiter.pattern.test(err)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    }
  }
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk
    check()
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk
    check()
  })
  const killer = setTimeout(() => child.kill('SIGKILL'), 120_000)
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; atMs: number }>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(killer)
      resolve({ code, signal, atMs: performance.now() })
    }),
  )
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${pattern} in output:\n${out}\n${err}`)),
          timeoutMs,
        )
        waiters.push({
          pattern,
          resolve: () => {
            clearTimeout(timer)
            resolve()
          },
        })
        check()
      }),
    kill: (signal) => {
      process.kill(child.pid!, signal)
      return performance.now()
    },
    exit,
  }
}

/** `servebench serve` flags for a small random run against `baseUrl` with a known model and a local tokenizer. */
export function hostileFlags(baseUrl: string, extra: string[] = []): string[] {
  return [
    'serve',
    '--base-url',
    baseUrl,
    '--model',
    'hostile/model',
    '--tokenizer',
    'cl100k_base',
    '--random-input-len',
    '16',
    '--random-output-len',
    '4',
    '--num-prompts',
    '4',
    '--disable-tqdm',
    ...extra,
  ]
}

/** Answers 200 `text/event-stream`, sends the headers, then nothing, ever. */
export function neverAnswer(_request: unknown, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' })
  response.flushHeaders()
}

/** The one result file in `dir`: not empty, valid against the schema, parsed. */
export async function readResultFile(dir: string): Promise<Record<string, unknown>> {
  const files = (await readdir(dir)).filter((name) => !name.startsWith('.'))
  expect(files).toHaveLength(1)
  const path = join(dir, files[0]!)
  expect((await stat(path)).size).toBeGreaterThan(0)
  const json = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>
  expect(validateResultFile(json)).toEqual({ valid: true })
  return json
}

/** Every request the run counted was either completed or failed, and `sent` of them were. */
export function expectAccounted(result: Record<string, unknown>, sent: number): void {
  expect((result.completed as number) + (result.failed as number)).toBe(sent)
}
