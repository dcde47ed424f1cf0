import { execFileSync } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect } from 'vitest'
import { type ScriptServer, startScriptServer } from '../backends/script-server.ts'
import { ROOT, runCli, test } from '../helpers.ts'
import { hostileFlags, neverAnswer } from './hostile-helpers.ts'

let server: ScriptServer | undefined
afterEach(() => server?.close())

describe('bad input is refused before anything is sent (exit 2)', () => {
  test('a header value holding CR/LF, named without its value', async () => {
    server = await startScriptServer(neverAnswer)
    const run = await runCli([...hostileFlags(server.baseUrl), '--header', 'X-Token=abc\r\nInjected: 1'])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe('servebench: --header X-Token value must not contain CR, LF or NUL characters\n')
    expect(server.requests).toHaveLength(0)
  })

  test('--random-input-len 1000000000 gets a message, not a V8 fatal error', async () => {
    server = await startScriptServer(neverAnswer)
    const run = await runCli([...hostileFlags(server.baseUrl), '--random-input-len', '1000000000'])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      'servebench: --random-input-len must be at most 10000000 tokens (got 1000000000)\n',
    )
    expect(server.requests).toHaveLength(0)
  })

  test('a bad SERVEBENCH_MAX_SSE_EVENT_BYTES', async () => {
    server = await startScriptServer(neverAnswer)
    const run = await runCli(hostileFlags(server.baseUrl), { env: { SERVEBENCH_MAX_SSE_EVENT_BYTES: '-1' } })
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      'servebench: SERVEBENCH_MAX_SSE_EVENT_BYTES must be a positive integer (got "-1")\n',
    )
    expect(server.requests).toHaveLength(0)
  })
})

describe('compare', () => {
  test('refuses a JSON object that is not a result', async ({ tmpDir }) => {
    const other = join(tmpDir, 'package.json')
    await writeFile(other, JSON.stringify({ name: 'x', version: '1.0.0' }))
    const run = await runCli(['compare', join(ROOT, 'fixtures/results/compare-a.json'), other])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `servebench: ${other} is not a benchmark result (the schema of servebench serve and vllm bench serve): it has no "date", "endpoint_type", "backend", "label" and 18 more keys\n`,
    )
  })
})

describe('merge-summaries', () => {
  test('names the field of a file that is not a run summary, and a folder without one', async ({
    tmpDir,
  }) => {
    const other = join(tmpDir, 'servebench-summary.json')
    await writeFile(
      other,
      JSON.stringify({ date: 'd', reason: 'passed', benchmarks: [{ file: 'a.bench.ts' }] }),
    )
    const run = await runCli(['merge-summaries', tmpDir, '--output-dir', join(tmpDir, 'out')])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      [
        'servebench: Invalid configuration (5 issues):',
        ...[
          'name must be a string',
          'fingerprint must be a string',
          'state must be one of passed, failed, skipped, pending (got undefined)',
          'verdicts must be an array',
          'errors must be an array',
        ].map((p) => `  - ${other} is not a servebench-summary.json: benchmarks[0].${p}`),
        '',
      ].join('\n'),
    )
    const missing = await runCli(['merge-summaries', join(tmpDir, 'out')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(`servebench: ${join(tmpDir, 'out')} cannot be read (ENOENT)\n`)
  })
})

describe('the /v1/models lookup', () => {
  test('honours --request-timeout against a server that never answers', async () => {
    server = await startScriptServer(() => {}) // Reads the request, never answers.
    const args = hostileFlags(server.baseUrl, ['--request-timeout', '1'])
    args.splice(args.indexOf('--model'), 2)
    const run = await runCli(args, { timeoutMs: 20_000 })
    expect(run.code).toBe(3)
    expect(run.stderr).toContain(`Cannot read the served model from ${server.baseUrl}/v1/models:`)
    expect(run.stderr).toContain('timeout')
  })
})

describe('inputs that were accepted in silence are refused before anything is sent (exit 2)', () => {
  const INTERNALS = (key: string, at: string): string =>
    `--extra-body holds the key "${key}" (at ${at}), which servebench does not send: it names a JavaScript object's internals, not a request field`
  test.for([
    [
      ['--speed-bench-dataset-subset', 'qualitative'],
      '--speed-bench-dataset-subset applies to --dataset-name speed_bench only (got --dataset-name random); drop it or name that dataset',
    ],
    [['--header', 'X-Tag=a\u0001b'], '--header X-Tag value must not contain control characters'],
    [['--extra-body', '{"__proto__": {"x": 1}}'], INTERNALS('__proto__', 'extra-body.__proto__')],
    [['--extra-body.__proto__.x', '1'], INTERNALS('__proto__', 'extra-body.__proto__')],
    [['--extra-body.constructor.prototype.x', '1'], INTERNALS('constructor', 'extra-body.constructor')],
    [
      ['--served-model-name', ''],
      '--served-model-name must not be empty (leave it out to send the model name)',
    ],
    [
      ['--metadata', 'completed=999'],
      '--metadata key "completed" is a key the result writes itself; pick another name',
    ],
    [
      ['--metadata', 'p99_ttft_ms=1'],
      '--metadata key "p99_ttft_ms" is a key the result writes itself; pick another name',
    ],
    [['--metadata', '__proto__=x'], '--metadata key "__proto__" cannot be a result key'],
    [
      ['--request-id-prefix', 'a\nb'],
      '--request-id-prefix must not hold control characters: it is sent in the x-request-id header (got "a\\nb")',
    ],
  ] as const)('%j', async ([flags, message]) => {
    server = await startScriptServer(neverAnswer)
    const run = await runCli([...hostileFlags(server.baseUrl), ...flags])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(`servebench: ${message}\n`)
    expect(server.requests).toHaveLength(0)
  })

  test('a config: key inside a --config file', async ({ tmpDir }) => {
    server = await startScriptServer(neverAnswer)
    const file = join(tmpDir, 'run.yaml')
    await writeFile(file, 'config: other.yaml\nnum-prompts: 3\n')
    const run = await runCli([...hostileFlags(server.baseUrl), '--config', file])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(`servebench: --config ${file} sets config; a --config file cannot name another\n`)
    expect(server.requests).toHaveLength(0)
  })

  test('a negative timed_trace timestamp', async ({ tmpDir }) => {
    server = await startScriptServer(neverAnswer)
    const file = join(tmpDir, 'trace.jsonl')
    await writeFile(file, '{"timestamp": -5, "input_length": 4, "output_length": 1}\n')
    const run = await runCli(localDatasetFlags(server.baseUrl, 'timed_trace', file))
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      `timed_trace: ${file}:1: field "timestamp" must be a non-negative number (got -5)`,
    )
    expect(server.requests).toHaveLength(0)
  })
})

describe('dataset files that are not what they seem', () => {
  test('invalid UTF-8 in a JSONL file is read with a warning naming the lines', async ({ tmpDir }) => {
    server = await startScriptServer((_q, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end('data: {"choices":[{"text":"ok"}]}\n\ndata: [DONE]\n\n')
    })
    const file = join(tmpDir, 'bad.jsonl')
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from('{"prompt": "hi '),
        Buffer.from([0xff, 0xfe]),
        Buffer.from(' there"}\n{"prompt": "ok"}\n'),
      ]),
    )
    const run = await runCli(localDatasetFlags(server.baseUrl, 'custom', file))
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(
      `servebench: custom: ${file} holds invalid UTF-8 on line 1; each bad byte is read as U+FFFD`,
    )
  })

  test.skipIf(process.platform === 'win32')(
    'a FIFO as --dataset-path is refused, not read forever',
    async ({ tmpDir }) => {
      server = await startScriptServer(neverAnswer)
      const fifo = join(tmpDir, 'data.jsonl')
      execFileSync('mkfifo', [fifo])
      const run = await runCli(localDatasetFlags(server.baseUrl, 'custom', fifo), { timeoutMs: 20_000 })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(
        `custom: --dataset-path ${fifo} is a FIFO (named pipe), not a regular file`,
      )
      expect(server.requests).toHaveLength(0)
    },
  )

  test('a JSONL line over SERVEBENCH_MAX_DATASET_LINE_BYTES is a named error', async ({ tmpDir }) => {
    server = await startScriptServer(neverAnswer)
    const file = join(tmpDir, 'long.jsonl')
    await writeFile(file, `{"prompt": "ok"}\n{"prompt": "${'a'.repeat(2 * 1024 * 1024)}"}\n`)
    const run = await runCli(localDatasetFlags(server.baseUrl, 'custom', file), {
      env: { SERVEBENCH_MAX_DATASET_LINE_BYTES: String(1024 * 1024) },
    })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      `custom: ${file}:2: the line is longer than 1048576 bytes; raise SERVEBENCH_MAX_DATASET_LINE_BYTES if rows this long are expected`,
    )
    expect(server.requests).toHaveLength(0)
  })
})

describe('--config files too big to be flags', () => {
  test.for([
    [
      '150,000 list items in 1.2 MB',
      () => `header:\n${'  - x=1\n'.repeat(150_000)}`,
      'is 1200008 bytes; a --config file is at most 1048576',
    ],
    [
      '20,000 items in a flow list',
      () => `extra-body: {"stop": [${Array(20_000).fill('a').join(',')}]}\n`,
      'holds more than 10000 values; a --config file holds flags',
    ],
    [
      'values nested 100 deep',
      () => `extra-body: ${'{"a": '.repeat(100)}1${'}'.repeat(100)}\n`,
      'nests values deeper than 32 levels',
    ],
  ] as const)('%s', async ([_what, text, message], { tmpDir }) => {
    server = await startScriptServer(neverAnswer)
    const file = join(tmpDir, 'run.yaml')
    await writeFile(file, text())
    const run = await runCli([...hostileFlags(server.baseUrl), '--config', file])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`servebench: --config ${file} ${message}`)
    expect(server.requests).toHaveLength(0)
  })
})

/** `hostileFlags` for a dataset read from `path`: the random length flags are the random dataset's. */
function localDatasetFlags(baseUrl: string, dataset: string, path: string): string[] {
  const flags = hostileFlags(baseUrl, ['--dataset-name', dataset, '--dataset-path', path])
  for (const flag of ['--random-input-len', '--random-output-len']) flags.splice(flags.indexOf(flag), 2)
  return flags
}
