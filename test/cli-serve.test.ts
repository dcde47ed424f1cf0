import { describe, expect } from 'vitest'
import { readOnlyResult, runCli, test } from './helpers.ts'
import { spawnCli } from './hostile/hostile-helpers.ts'
import { startHttpServer } from './server-helpers.ts'

const SMALL = [
  '--tokenizer',
  'cl100k_base',
  '--random-input-len',
  '64',
  '--random-output-len',
  '16',
  '--disable-tqdm',
]

describe('servebench serve against the simulator', () => {
  test('prints the Python table, writes a valid JSON, and measures the simulator timings', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      ...SMALL,
      '--num-prompts',
      '40',
      '--max-concurrency',
      '8',
      '--save-result',
      '--save-detailed',
      '--result-dir',
      tmpDir,
      '--percentile-metrics',
      'ttft,tpot,itl,e2el',
      '--metric-percentiles',
      '50,99',
      '--goodput',
      'ttft:1000',
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('============ Serving Benchmark Result ============')
    expect(run.stdout).toMatch(/^Successful requests: {21}40 {8}$/m)
    expect(run.stdout).toContain('---------------Time to First Token----------------')
    const result = await readOnlyResult(tmpDir)
    expect(result).toMatchObject({
      completed: 40,
      failed: 0,
      backend: 'openai',
      model_id: 'servebench/sim-model',
      max_concurrency: 8,
    })
    expect(result.total_output_tokens).toBe(40 * 16)
    // The simulator writes the first token 40 ms after reading the request: a load can only add to it.
    // How close the medians come to the configured timings is checked in serial/cli-serve-timings.test.ts.
    const ttfts = result.ttfts as number[]
    expect(Math.min(...ttfts)).toBeGreaterThanOrEqual(0.04)
    expect(result.request_goodput as number).toBeGreaterThan(0)
    const latencies = result.latencies as number[]
    const itls = result.itls as number[][]
    latencies.forEach((latency, i) => {
      expect(latency - ttfts[i]!).toBeCloseTo(
        itls[i]!.reduce((s, x) => s + x, 0),
        9,
      )
    })
  })

  test('falls back to the server /tokenize when no tokenizer is named', async ({ sim, tmpDir }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-chat',
      '--random-input-len',
      '32',
      '--random-output-len',
      '4',
      '--num-prompts',
      '5',
      '--save-result',
      '--result-dir',
      tmpDir,
      '--disable-tqdm',
    ])
    expect(run.code).toBe(0)
    // The console and the result say who counted the tokens.
    expect(run.stdout).toContain(
      'Tokenizer: no tokenizer for "servebench/sim-model" as a tiktoken name, a file, in the local cache or on the hub; ' +
        "the server's /tokenize and /detokenize count the tokens (--tokenizer names one)\n",
    )
    const result = await readOnlyResult(tmpDir)
    expect(result).toMatchObject({
      completed: 5,
      backend: 'openai-chat',
      tokenizer_id: 'servebench/sim-model',
      tokenizer_source: 'server',
    })
    expect(result).not.toHaveProperty('ttfts')
  })

  test('a misspelt --tokenizer stops the run with exit 2 before any request, naming what was tried', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli(
      ['serve', '--base-url', sim.url, '--tokenizer', 'cl100k_bse', '--num-prompts', '5', '--disable-tqdm'],
      { env: { HF_HOME: tmpDir, HF_HUB_OFFLINE: '1' } },
    )
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('servebench: Cannot load a tokenizer for "cl100k_bse":')
    expect(run.stderr).toContain('  - tiktoken: not a built-in encoding (')
    expect(run.stderr).toContain('  - local file: ')
    expect(run.stderr).toContain(`  - Hugging Face cache: cl100k_bse is not in ${tmpDir}`)
    expect(run.stderr).toContain('  - Hugging Face hub: ')
    expect(run.stderr).toContain(
      '  - server: not tried for a named tokenizer (pass --tokenizer server to use /tokenize)',
    )
    // Nothing was sent: the server never saw a benchmark request, nor its /tokenize.
    expect(sim.stats().requestsReceived).toBe(0)
    expect(run.stdout).not.toContain('Starting main benchmark run')
  })

  test('a tokenizer named "server" is the server\'s /tokenize, and the result says so', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--tokenizer',
      'server',
      '--random-input-len',
      '32',
      '--random-output-len',
      '4',
      '--num-prompts',
      '3',
      '--save-result',
      '--result-dir',
      tmpDir,
      '--disable-tqdm',
    ])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(
      "Tokenizer: the server's /tokenize and /detokenize, for servebench/sim-model (--tokenizer server)\n",
    )
    expect(await readOnlyResult(tmpDir)).toMatchObject({ completed: 3, tokenizer_source: 'server' })
  })

  test('counts HTTP errors as failed requests and still writes the result', async ({ tmpDir }) => {
    const { url, close } = await startHttpServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"loading"}')
    })
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        url,
        '--model',
        'm',
        ...SMALL,
        '--num-prompts',
        '6',
        '--save-result',
        '--save-detailed',
        '--result-dir',
        tmpDir,
      ])
      // No request succeeded: exit 1 (docs/errors.md).
      expect(run.code).toBe(1)
      expect(run.stdout).toContain('Failed requests during benchmark run detected (capping to 10):')
      const result = await readOnlyResult(tmpDir)
      expect(result).toMatchObject({ completed: 0, failed: 6 })
      expect((result.errors as string[])[0]).toMatch(/^HTTP 503/)
    } finally {
      await close()
    }
  })

  test('counts a malformed stream as a failed request', async ({ tmpDir }) => {
    const { url, close } = await startHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end('data: {"choices": [oops\n\ndata: [DONE]\n\n')
    })
    try {
      const run = await runCli([
        'serve',
        '--base-url',
        url,
        '--model',
        'm',
        ...SMALL,
        '--num-prompts',
        '3',
        '--save-result',
        '--save-detailed',
        '--result-dir',
        tmpDir,
      ])
      // No request succeeded: exit 1 (docs/errors.md).
      expect(run.code).toBe(1)
      const result = await readOnlyResult(tmpDir)
      expect(result).toMatchObject({ completed: 0, failed: 3 })
      expect((result.errors as string[]).every((e) => e.length > 0)).toBe(true)
    } finally {
      await close()
    }
  })

  test('stops on SIGINT, waits for requests in flight, and writes a valid partial result', async ({
    sim,
    tmpDir,
  }) => {
    // Signalled once the timed run has started (1 s of 10 at 20 req/s), whatever the machine's speed.
    const cli = spawnCli([
      'serve',
      '--base-url',
      sim.url,
      ...SMALL,
      '--num-prompts',
      '200',
      '--request-rate',
      '20',
      '--save-result',
      '--result-dir',
      tmpDir,
    ])
    await cli.waitFor(/Starting main benchmark run/)
    await new Promise((r) => setTimeout(r, 1_000))
    cli.kill('SIGINT')
    const exit = await cli.exit
    const run = { code: exit.code, stderr: cli.stderr() }
    expect(run.code).toBe(130)
    expect(run.stderr).toContain('SIGINT received')
    const result = await readOnlyResult(tmpDir)
    const sent = (result.completed as number) + (result.failed as number)
    expect(sent).toBeGreaterThan(0)
    expect(sent).toBeLessThan(200)
  })
})

describe('servebench serve with bad input', () => {
  test('a bad flag value exits 2 naming the flag, without a stack trace', async () => {
    const run = await runCli(['serve', '--num-prompts', '0', '--request-rate', 'fast'])
    expect(run.code).toBe(2)
    expect(run.stderr).toMatchInlineSnapshot(`
      "servebench: Invalid configuration (2 issues):
        - --num-prompts must be at least 1 (got 0)
        - --request-rate must be > 0 or inf (got "fast")
      "
    `)
  })

  test('an unknown flag exits 2 and suggests the right one', async () => {
    const run = await runCli(['serve', '--max-concurency', '4'])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      'servebench: --max-concurency is not a servebench serve flag; did you mean --max-concurrency? (see --help)\n',
    )
  })

  test('an unreachable server without --model exits 3 with the URL and a hint', async () => {
    const run = await runCli(['serve', '--base-url', 'http://127.0.0.1:9', ...SMALL])
    expect(run.code).toBe(3)
    expect(run.stderr).toMatch(
      /^servebench: Cannot read the served model from http:\/\/127\.0\.0\.1:9\/v1\/models: .*ECONNREFUSED.*Pass --model to skip this lookup\.\n$/,
    )
  })

  test('an unreachable server with a ready check exits 3 after the timeout', async () => {
    const run = await runCli([
      'serve',
      '--base-url',
      'http://127.0.0.1:9',
      '--model',
      'm',
      ...SMALL,
      '--ready-check-timeout-sec',
      '1',
    ])
    expect(run.code).toBe(3)
    // A loaded machine can keep the only probe from finishing within the second.
    expect(run.stderr).toMatch(
      /^servebench: Endpoint not ready after 1s: (.*ECONNREFUSED.*|the test request got no answer within 1s)$/m,
    )
  })

  test('--help lists the flags by topic', async () => {
    const run = await runCli(['serve', '--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Traffic:')
    expect(run.stdout).toContain('--max-concurrency VALUE')
  })
})
