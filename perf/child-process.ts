/**
 * Child processes of the perf sections: a peer client, or one measurement of servebench's in a
 * fresh process, so it pays its own start-up and JIT warm-up instead of inheriting the code the
 * sections before it compiled.
 */
import { spawn } from 'node:child_process'

/** What a finished child process wrote. */
export interface ChildOutput {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `command argv` to its end and collects what it wrote; rejects only when it cannot start. */
export function runChild(
  command: string,
  argv: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c
    })
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c
    })
    child.on('error', (error) => reject(new Error(`${command} cannot be started (${error.message})`)))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/**
 * Runs a perf entry (a TypeScript file) in a fresh Node process with this process's loader (tsx),
 * so it runs the sources, and returns the JSON of the last line it printed.
 */
export async function runFreshEntry(entry: string, args: readonly string[]): Promise<unknown> {
  const { code, stdout, stderr } = await runChild(process.execPath, [...process.execArgv, entry, ...args])
  // The figures are the last line; anything before it is the run's own output.
  const last = stdout.trimEnd().split('\n').at(-1) ?? ''
  if (code !== 0 || !last.startsWith('{')) {
    throw new Error(`${entry} failed (${code}): ${(stderr || stdout).slice(-800)}`)
  }
  return JSON.parse(last)
}

/** What a child that may have been stopped wrote, and when it printed a line first matching `mark`. */
export interface TimedChildOutput extends ChildOutput {
  /** The child ran past its time and was killed. */
  timedOut: boolean
  /** `performance.now()` when `mark` first appeared on its stdout; absent when it never did. */
  markedAtMs?: number
}

/**
 * Runs `command argv` for at most `timeoutMs` (then SIGKILL), collecting what it wrote and noting
 * when stdout first matched `mark`. Resolves also when it cannot start (code null, the reason in
 * stderr): the caller reports a failed measurement, never a crash.
 */
export function runChildWithin(
  command: string,
  argv: readonly string[],
  options: { timeoutMs: number; mark?: RegExp; env?: NodeJS.ProcessEnv; cwd?: string },
): Promise<TimedChildOutput> {
  return new Promise((resolve) => {
    const child = spawn(command, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
    })
    let stdout = ''
    let stderr = ''
    let timedOut = false
    let markedAtMs: number | undefined
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, options.timeoutMs)
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c
      if (markedAtMs === undefined && options.mark?.test(stdout)) markedAtMs = performance.now()
    })
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c
    })
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ code: null, stdout, stderr: `${command} cannot be started (${error.message})`, timedOut })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, timedOut, ...(markedAtMs !== undefined ? { markedAtMs } : {}) })
    })
  })
}
