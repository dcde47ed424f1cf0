import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { freePort } from '../../../test/server-helpers.ts'
import { runSweepServe } from './run-sweep.ts'
import type { SweepServeArgs } from './sweep-flags.ts'

const dir = mkdtempSync(join(tmpdir(), 'servebench-sweep-int-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.on('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.on('error', () => resolve(false))
  })
}

function sweepArgs(overrides: Partial<SweepServeArgs>): SweepServeArgs {
  return {
    serveCommand: [],
    benchCommand: ['sh', '-c', 'exit 1', 'sh'],
    afterBenchCommand: ['true'],
    showStdout: false,
    serverReadyTimeoutS: 30,
    serveParams: [{}],
    benchParams: [{}],
    linkVars: [],
    experimentDir: join(dir, 'exp'),
    numRuns: 1,
    warmupNumPrompts: 0,
    continueOnError: true,
    dryRun: false,
    resume: false,
    ...overrides,
  }
}

describe('runSweepServe with --continue-on-error', () => {
  it('records a server that crashed and a failed benchmark, and kills the whole server process group', async () => {
    const port = await freePort()
    // The HTTP server is a grandchild of the served command: only a group kill stops it.
    const server = `require('http').createServer((q, s) => s.end()).listen(${port}, '127.0.0.1')`
    const lines: string[] = []
    // `--crash 1` makes the command exit at once; `--ok 1` is ignored.
    const script = `case "$*" in *--crash*) exit 7;; esac; "${process.execPath}" -e "${server}" & wait`
    const data = await runSweepServe(
      sweepArgs({
        serveCommand: ['sh', '-c', script, 'sh', '--port', String(port)],
        serveParams: [{ crash: 1 }, { ok: 1 }],
        benchParams: [{ _benchmark_name: 'b' }],
      }),
      { log: (line) => lines.push(line) },
    )
    expect(data).toEqual([])
    expect(lines).toContain(
      '[FAILED SERVER COMBINATION] crash=1: RuntimeError: Server process crashed with return code 7',
    )
    expect(lines).toContain('[NO SUCCESSFUL MEASURED RUNS] leaving combination retryable')
    const exp = join(dir, 'exp')
    expect(readdirSync(exp).sort()).toEqual([
      'SERVE--ok=1-BENCH--b',
      'SERVE-crash=1-failure.json',
      'summary.csv',
    ])
    expect(JSON.parse(readFileSync(join(exp, 'SERVE-crash=1-failure.json'), 'utf8'))).toEqual({
      error_type: 'RuntimeError',
      error: 'Server process crashed with return code 7',
      serve_overrides: { crash: 1 },
    })
    const failure = JSON.parse(readFileSync(join(exp, 'SERVE--ok=1-BENCH--b', 'run=0.failure.json'), 'utf8'))
    expect(failure).toMatchObject({
      run_number: 0,
      error_type: 'CalledProcessError',
      bench_overrides: { _benchmark_name: 'b' },
    })
    expect(failure.error).toMatch(/returned non-zero exit status 1\.$/)
    expect(readFileSync(join(exp, 'summary.csv'), 'utf8')).toBe('\n')
    // The kill reaches the grandchild at once, but its socket closes when it has died: poll briefly.
    let listening = true
    for (let i = 0; i < 100 && listening; i++) {
      listening = await isListening(port)
      if (listening) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(listening).toBe(false)
  })
})
