import { type ChildProcess, spawn } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { request } from 'undici'
import { pythonStr } from './param-sweep.ts'

/** A failed step of a sweep, named as Python names it (`error_type` in the failure files). */
export class SweepStepError extends Error {
  constructor(name: 'RuntimeError' | 'TimeoutError' | 'CalledProcessError' | 'ValueError', message: string) {
    super(message)
    this.name = name
  }
}

/** How a {@link ServerProcess} shows output and cleans up after each benchmark. */
export interface ServerProcessOptions {
  /** Show the command's stdout (its stderr is always shown). */
  showStdout: boolean
  /** `--after-bench-cmd`, split into words; empty for the default cache reset. */
  afterBenchCommand: readonly string[]
  log: (line: string) => void
  /** Variables added to the command's environment (`sweep startup`'s fresh caches of a cold start). */
  env?: Readonly<Record<string, string>>
}

/** vLLM's cache-reset endpoints, posted after each benchmark of a `vllm` server. */
const VLLM_RESET_CACHE_PATHS = ['/reset_prefix_cache', '/reset_mm_cache', '/reset_encoder_cache'] as const
// Python polls once a second; a quicker poll only shortens the wait for a fast server.
const READY_POLL_INTERVAL_MS = 250

/**
 * The served command of one sweep point, in a process group of its own so that stopping it stops
 * every process it started (API server and engines). Python: ServerProcess
 * (vllm/benchmarks/sweep/server.py).
 */
export class ServerProcess {
  private child: ChildProcess | undefined
  private exit: Promise<number | null> | undefined

  readonly command: readonly string[]
  private readonly options: ServerProcessOptions

  constructor(command: readonly string[], options: ServerProcessOptions) {
    this.command = command
    this.options = options
  }

  start(): void {
    const [file, ...args] = this.command
    const child = spawn(file!, args, {
      detached: true,
      stdio: ['ignore', this.options.showStdout ? 'inherit' : 'ignore', 'inherit'],
      // As Python: the reset endpoints of a vLLM server need its dev mode.
      env: { ...process.env, VLLM_SERVER_DEV_MODE: '1', ...this.options.env },
    })
    this.child = child
    this.exit = new Promise((resolve) => {
      child.on('error', () => resolve(-1))
      child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null)))
    })
  }

  /** `http://<--host or localhost>:<-p/--port or 8000>` of the served command. Python: _get_vllm_server_address. */
  address(): string {
    const cmd = this.command
    const hostIndex = cmd.indexOf('--host')
    const host = hostIndex !== -1 ? cmd[hostIndex + 1] : 'localhost'
    const portIndex = [cmd.indexOf('-p'), cmd.indexOf('--port')].find((i) => i !== -1)
    const port = portIndex !== undefined ? Number.parseInt(cmd[portIndex + 1] ?? '', 10) : 8000
    return `http://${host}:${port}`
  }

  /**
   * Polls `GET /health` every `pollMs` (250) ms until it answers 200; fails when the process exits
   * first or `timeoutS` passes.
   */
  async waitUntilReady(timeoutS: number, pollMs = READY_POLL_INTERVAL_MS): Promise<void> {
    const deadline = performance.now() + timeoutS * 1000
    for (;;) {
      if (await this.isReady()) return
      const code = await Promise.race([this.exit, sleep(0).then(() => 'running' as const)])
      if (code !== 'running') {
        throw new SweepStepError('RuntimeError', `Server process crashed with return code ${code}`)
      }
      if (performance.now() > deadline) {
        throw new SweepStepError('TimeoutError', `Server failed to become ready within ${timeoutS} seconds.`)
      }
      await Promise.race([sleep(pollMs), this.exit])
    }
  }

  /** Kills the whole process group (SIGKILL, as Python) and waits for the command to exit. */
  async stop(): Promise<void> {
    const child = this.child
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
    await this.exit
  }

  /**
   * After each benchmark: `--after-bench-cmd` when given; else the cache resets of a `vllm` server,
   * or `/reset_prefix_cache` of `servebench sim`. Python: ServerProcess.after_bench.
   */
  async afterBench(): Promise<void> {
    if (this.options.afterBenchCommand.length > 0) {
      await runCommand(this.options.afterBenchCommand, this.options.showStdout)
      return
    }
    const paths = this.resetPaths()
    if (!paths) {
      // Deviation: Python raises NotImplementedError for a server it does not know.
      this.options.log(
        `No cache reset for a \`${this.command[0]}\` server; pass --after-bench-cmd to run one after each benchmark.`,
      )
      return
    }
    this.options.log(`Resetting caches at ${this.address()}`)
    for (const path of paths) {
      const response = await request(`${this.address()}${path}`, { method: 'POST' })
      await response.body.dump()
      if (response.statusCode >= 400) {
        throw new SweepStepError('RuntimeError', `POST ${path} answered HTTP ${response.statusCode}`)
      }
    }
  }

  private resetPaths(): readonly string[] | undefined {
    const [first = '', second = '', third = ''] = this.command
    if (first.endsWith('vllm')) return VLLM_RESET_CACHE_PATHS
    const isServebench = (word: string): boolean => /servebench(\.js)?$/.test(word)
    if ((isServebench(first) && second === 'sim') || (isServebench(second) && third === 'sim')) {
      return ['/reset_prefix_cache']
    }
    return undefined
  }

  private async isReady(): Promise<boolean> {
    try {
      const response = await request(`${this.address()}/health`, { signal: AbortSignal.timeout(5_000) })
      await response.body.dump()
      return response.statusCode === 200
    } catch {
      return false
    }
  }
}

/**
 * Runs a command to its end, its stdout shown only with `showStdout`, its stderr always; a
 * non-zero exit is a `CalledProcessError` as Python's `subprocess.run(check=True)` raises.
 */
export function runCommand(command: readonly string[], showStdout: boolean): Promise<void> {
  const [file, ...args] = command
  return new Promise((resolve, reject) => {
    const child = spawn(file!, args, { stdio: ['ignore', showStdout ? 'inherit' : 'ignore', 'inherit'] })
    child.on('error', (error) =>
      reject(
        new SweepStepError(
          'CalledProcessError',
          `Command ${pythonStr(command)} could not start: ${error.message}`,
        ),
      ),
    )
    child.on('exit', (code, signal) => {
      if (code === 0) resolve()
      else {
        const status = code ?? `-${signal}`
        reject(
          new SweepStepError(
            'CalledProcessError',
            `Command ${pythonStr(command)} returned non-zero exit status ${status}.`,
          ),
        )
      }
    })
  })
}
