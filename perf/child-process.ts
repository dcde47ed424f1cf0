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
