import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { test as base, expect } from 'vitest'
import { parsePythonJson } from '../src/report/result/py-json.ts'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import type { SimOptions } from '../src/sim/options.ts'
import { type SimServer, startSimulator } from '../src/sim/server.ts'

export const ROOT = resolve(import.meta.dirname, '..')
export const BIN = join(ROOT, 'bin/servebench.js')

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/**
 * Run the built `servebench` binary (npm test builds dist/ first).
 *
 * `serve` gets `--client-check warn` unless the args set `--client-check` or `defaultClientCheck` is set:
 * the e2e tests run many CLIs at once on a loaded machine, where the client self-check can rightly
 * find a client starved of CPU and exit 4. Only the self-check's own tests (test/serial/) run on
 * the default.
 */
export function runCli(
  args: string[],
  options: {
    env?: Record<string, string>
    cwd?: string
    timeoutMs?: number
    onSpawn?: (pid: number) => void
    /** Keep `--client-check` at its default (`fail`) for `serve`. */
    defaultClientCheck?: boolean
    /** A command the binary runs under, e.g. `['taskset', '-c', '0']`. */
    wrap?: string[]
  } = {},
): Promise<CliResult> {
  const argv =
    args[0] === 'serve' && !options.defaultClientCheck && !args.includes('--client-check')
      ? ['serve', '--client-check', 'warn', ...args.slice(1)]
      : args
  return new Promise((resolvePromise, reject) => {
    const [command, ...prefix] = [...(options.wrap ?? []), process.execPath]
    const child = spawn(command!, [...prefix, BIN, ...argv], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, HF_HUB_OFFLINE: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
    })
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
    if (child.pid !== undefined) options.onSpawn?.(child.pid)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({ code, signal, stdout, stderr })
    })
  })
}

/** The one result file in `dir`, parsed and checked against the result schema. */
export async function readOnlyResult(dir: string): Promise<Record<string, unknown>> {
  const files = await readdir(dir)
  expect(files).toHaveLength(1)
  const value = parsePythonJson(await readFile(join(dir, files[0]!), 'utf8')) as Record<string, unknown>
  expect(validateResultFile(value)).toEqual({ valid: true })
  return value
}

/** Fixtures: a fresh temp dir, and a simulator with exact timings (TTFT 40 ms, ITL 10 ms) unless overridden. */
export const test = base.extend<{ tmpDir: string; simOptions: SimOptions; sim: SimServer }>({
  // biome-ignore lint/correctness/noEmptyPattern: Vitest fixtures take their dependencies by destructuring.
  tmpDir: async ({}, use) => {
    const dir = await mkdtemp(join(tmpdir(), 'servebench-'))
    await use(dir)
    await rm(dir, { recursive: true, force: true })
  },
  simOptions: [{ ttftMs: 40, itlMs: 10, recordTimings: true }, { injected: false }],
  sim: async ({ simOptions }, use) => {
    const sim = await startSimulator(simOptions)
    await use(sim)
    await sim.close()
  },
})

/** Every JSON file in a directory, parsed, by file name (sweep points, multi-run files). */
export async function readJsonFiles(dir: string): Promise<Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, unknown>> = {}
  for (const name of await readdir(dir)) out[name] = JSON.parse(await readFile(join(dir, name), 'utf8'))
  return out
}

/**
 * Resolves once the simulator has finished `count` requests (the CLI's ready check is the first).
 * Tests that interrupt a run wait on this rather than on a fixed delay, which a busy machine can
 * outlast before the run has sent anything.
 */
export async function untilFinished(sim: SimServer, count: number): Promise<void> {
  while (sim.stats().requestsFinished < count) await new Promise((resolve) => setTimeout(resolve, 20))
}
