/**
 * The bad-input corpus (`npm run perf -- bad-input`): inputs a careless user or a broken script
 * gives `servebench serve`, each run with the built CLI against a local server that counts what it
 * receives. A case passes when the command exits 2 and the server received nothing, or, for the
 * cases marked `warned`, when the run goes on and stderr holds the warning. It prints the count
 * and each case that did not pass; the e2e tests in test/hostile/ assert the messages.
 */
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// SERVEBENCH_PERF_BIN runs another build (an older checkout's bin/servebench.js) for a before/after count.
const BIN = process.env.SERVEBENCH_PERF_BIN ?? join(import.meta.dirname, '..', 'bin/servebench.js')

/** One input: the flags after the base flags (`{dir}` is the case's folder), files to make first, the environment. */
interface BadInput {
  name: string
  flags: string[]
  /** Drop the random dataset's length flags (another dataset is named). */
  noRandomFlags?: boolean
  /** Without `--model`: the run would ask `/v1/models`. */
  noModel?: boolean
  env?: Record<string, string>
  setup?(dir: string): void
  /** The run goes on with a warning matching this, instead of exiting 2. */
  warned?: RegExp
}

const LONG = 'x'.repeat(300)

/** The corpus: the second probe's cases first (result names, large inputs, silent accepts, files), then the first probe's kinds. */
const CORPUS: BadInput[] = [
  // Result names.
  { name: '--label ../x', flags: ['--label', '../x', '--save-result', '--result-dir', '{dir}/out'] },
  { name: '--label a/b', flags: ['--label', 'a/b', '--save-result', '--result-dir', '{dir}/out'] },
  { name: '--label ..', flags: ['--label', '..'] },
  { name: '--label of 300 bytes', flags: ['--label', LONG] },
  { name: '--label with a newline', flags: ['--label', 'a\nb'] },
  {
    name: '--result-filename ../x.json',
    flags: ['--save-result', '--result-dir', '{dir}/out', '--result-filename', '../x.json'],
  },
  {
    name: '--result-filename ../../../../../../x.json',
    flags: ['--save-result', '--result-dir', '{dir}/out', '--result-filename', '../../../../../../x.json'],
  },
  { name: '--result-filename of 304 bytes', flags: ['--save-result', '--result-filename', `${LONG}.json`] },
  { name: '--result-filename .', flags: ['--save-result', '--result-filename', '.'] },
  {
    name: '--result-dir that is a file',
    flags: ['--save-result', '--result-dir', '{dir}/file'],
    setup: (d) => writeFileSync(join(d, 'file'), 'x'),
  },
  { name: '--result-dir under /proc', flags: ['--save-result', '--result-dir', '/proc/servebench'] },
  // Large inputs.
  {
    name: '200 MB single-line JSONL prompt',
    flags: ['--dataset-name', 'custom', '--dataset-path', '{dir}/big.jsonl'],
    noRandomFlags: true,
    setup: (d) => {
      const fd = openSync(join(d, 'big.jsonl'), 'w')
      writeSync(fd, '{"prompt": "')
      const chunk = 'a'.repeat(1_000_000)
      for (let i = 0; i < 200; i++) writeSync(fd, chunk)
      writeSync(fd, '"}\n')
      closeSync(fd)
    },
  },
  {
    name: '2 MB YAML config of 150k list items',
    flags: ['--config', '{dir}/big.yaml'],
    setup: (d) => writeFileSync(join(d, 'big.yaml'), `header:\n${'  - x=1\n'.repeat(250_000)}`),
  },
  {
    name: 'YAML config of 20k flow items',
    flags: ['--config', '{dir}/flow.yaml'],
    setup: (d) =>
      writeFileSync(join(d, 'flow.yaml'), `extra-body: {"stop": [${Array(20_000).fill('a').join(',')}]}\n`),
  },
  {
    name: 'YAML config nested 100 deep',
    flags: ['--config', '{dir}/deep.yaml'],
    setup: (d) =>
      writeFileSync(join(d, 'deep.yaml'), `extra-body: ${'{"a": '.repeat(100)}1${'}'.repeat(100)}\n`),
  },
  {
    name: 'YAML config nested 100,000 deep',
    flags: ['--config', '{dir}/deeper.yaml'],
    setup: (d) =>
      writeFileSync(join(d, 'deeper.yaml'), `extra-body: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`),
  },
  // Accepted in silence before.
  {
    name: '--speed-bench-dataset-subset with random',
    flags: ['--speed-bench-dataset-subset', 'qualitative'],
  },
  { name: '--sonnet-input-len with random', flags: ['--sonnet-input-len', '100'] },
  { name: '--header value with a control byte', flags: ['--header', 'X-Tag=a\u0001b'] },
  { name: '--extra-body {"__proto__": …}', flags: ['--extra-body', '{"__proto__": {"x": 1}}'] },
  { name: '--extra-body.__proto__.x', flags: ['--extra-body.__proto__.x', '1'] },
  { name: '--extra-body.constructor.prototype.x', flags: ['--extra-body.constructor.prototype.x', '1'] },
  { name: "--served-model-name ''", flags: ['--served-model-name', ''] },
  { name: "--model ''", flags: ['--model', ''], noModel: true },
  {
    name: 'config: inside a --config file',
    flags: ['--config', '{dir}/nested.yaml'],
    setup: (d) => writeFileSync(join(d, 'nested.yaml'), 'config: other.yaml\n'),
  },
  { name: '--metadata completed=999', flags: ['--metadata', 'completed=999'] },
  { name: '--metadata p99_ttft_ms=1', flags: ['--metadata', 'p99_ttft_ms=1'] },
  { name: '--metadata __proto__=x', flags: ['--metadata', '__proto__=x'] },
  {
    name: 'negative timed_trace timestamp',
    flags: ['--dataset-name', 'timed_trace', '--dataset-path', '{dir}/trace.jsonl'],
    noRandomFlags: true,
    setup: (d) =>
      writeFileSync(join(d, 'trace.jsonl'), '{"timestamp": -5, "input_length": 4, "output_length": 1}\n'),
  },
  { name: "--request-id-prefix $'a\\nb'", flags: ['--request-id-prefix', 'a\nb'] },
  {
    name: 'invalid UTF-8 in a JSONL file',
    flags: [
      '--dataset-name',
      'custom',
      '--dataset-path',
      '{dir}/bad.jsonl',
      '--ready-check-timeout-sec',
      '0',
    ],
    noRandomFlags: true,
    setup: (d) =>
      writeFileSync(
        join(d, 'bad.jsonl'),
        Buffer.from([...Buffer.from('{"prompt": "a '), 0xff, ...Buffer.from('"}\n')]),
      ),
    warned: /holds invalid UTF-8 on line 1/,
  },
  // Files that are not files.
  {
    name: 'a FIFO as --dataset-path',
    flags: ['--dataset-name', 'custom', '--dataset-path', '{dir}/fifo.jsonl'],
    noRandomFlags: true,
    setup: (d) => execFileSync('mkfifo', [join(d, 'fifo.jsonl')]),
  },
  {
    name: '/dev/zero as --dataset-path',
    flags: ['--dataset-name', 'sonnet', '--dataset-path', '/dev/zero'],
    noRandomFlags: true,
  },
  {
    name: 'a FIFO as --config',
    flags: ['--config', '{dir}/fifo.yaml'],
    setup: (d) => execFileSync('mkfifo', [join(d, 'fifo.yaml')]),
  },
  {
    name: 'a folder as --dataset-path',
    flags: ['--dataset-name', 'custom', '--dataset-path', '{dir}/folder.jsonl'],
    noRandomFlags: true,
    setup: (d) => mkdirSync(join(d, 'folder.jsonl')),
  },
  {
    name: 'a missing --dataset-path',
    flags: ['--dataset-name', 'custom', '--dataset-path', '{dir}/none.jsonl'],
    noRandomFlags: true,
  },
  {
    name: 'an empty JSONL file',
    flags: ['--dataset-name', 'custom', '--dataset-path', '{dir}/empty.jsonl'],
    noRandomFlags: true,
    setup: (d) => writeFileSync(join(d, 'empty.jsonl'), ''),
  },
  {
    name: 'a JSONL line that is not JSON',
    flags: ['--dataset-name', 'custom', '--dataset-path', '{dir}/broken.jsonl'],
    noRandomFlags: true,
    setup: (d) => writeFileSync(join(d, 'broken.jsonl'), '{"prompt": \n'),
  },
  // The first probe's kinds.
  { name: '--header value with CR/LF', flags: ['--header', 'X-Token=abc\r\nInjected: 1'] },
  { name: '--header without =', flags: ['--header', 'X-Token'] },
  { name: '--header name with a space', flags: ['--header', 'X Token=1'] },
  { name: '--random-input-len 1000000000', flags: ['--random-input-len', '1000000000'] },
  { name: 'SERVEBENCH_MAX_SSE_EVENT_BYTES=-1', flags: [], env: { SERVEBENCH_MAX_SSE_EVENT_BYTES: '-1' } },
  { name: 'SERVEBENCH_MAX_RESPONSE_BYTES=abc', flags: [], env: { SERVEBENCH_MAX_RESPONSE_BYTES: 'abc' } },
  { name: 'SERVEBENCH_MAX_DATASET_LINE_BYTES=0', flags: [], env: { SERVEBENCH_MAX_DATASET_LINE_BYTES: '0' } },
  { name: '--max-concurrency 0', flags: ['--max-concurrency', '0'] },
  { name: '--num-prompts -1', flags: ['--num-prompts', '-1'] },
  { name: '--num-prompts abc', flags: ['--num-prompts', 'abc'] },
  { name: '--request-rate -1', flags: ['--request-rate', '-1'] },
  { name: '--burstiness 0', flags: ['--burstiness', '0'] },
  { name: '--request-timeout 0', flags: ['--request-timeout', '0'] },
  { name: '--read-timeout -1', flags: ['--read-timeout', '-1'] },
  { name: '--max-retries 1000', flags: ['--max-retries', '1000'] },
  { name: '--random-batch-size 4 with a generation backend', flags: ['--random-batch-size', '4'] },
  { name: '--dataset-name nope', flags: ['--dataset-name', 'nope'], noRandomFlags: true },
  { name: '--backend nope', flags: ['--backend', 'nope'] },
  { name: '--extra-body not JSON', flags: ['--extra-body', '{temperature: 0}'] },
  { name: '--extra-body an array', flags: ['--extra-body', '[1, 2]'] },
  { name: '--goodput ttft', flags: ['--goodput', 'ttft'] },
  { name: '--percentile-metrics nope', flags: ['--percentile-metrics', 'nope'] },
  { name: '--metric-percentiles 101', flags: ['--metric-percentiles', '101'] },
  { name: '--config missing.yaml', flags: ['--config', '{dir}/missing.yaml'] },
  {
    name: '--config run.json',
    flags: ['--config', '{dir}/run.json'],
    setup: (d) => writeFileSync(join(d, 'run.json'), '{}'),
  },
  { name: 'an unknown flag', flags: ['--frobnicate', '1'] },
]

/** Runs the corpus; prints the count and the cases that did not pass. */
export async function printBadInput(): Promise<void> {
  let received = 0
  const server = createServer((request, response) => {
    received++
    request.resume()
    // Never answers: a case that sends anything is counted, and its run holds until it is killed.
    void response
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const failures: string[] = []
  let passed = 0
  try {
    for (const input of CORPUS) {
      const dir = mkdtempSync(join(tmpdir(), 'servebench-bad-input-'))
      try {
        input.setup?.(dir)
        const before = received
        const run = await runCli(baseFlags(baseUrl, input, dir), input.env ?? {}, dir)
        const sent = received - before
        const ok = input.warned
          ? run.code !== 2 && input.warned.test(run.stderr)
          : run.code === 2 && sent === 0
        if (ok) passed++
        else
          failures.push(
            `${input.name}: exit ${run.code}, ${sent} requests, ${run.stderr.trim().split('\n')[0]?.slice(0, 140)}`,
          )
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  } finally {
    server.closeAllConnections()
    server.close()
  }
  console.log(`bad input: ${passed}/${CORPUS.length} handled (exit 2 with nothing sent, or the warning)`)
  for (const line of failures) console.log(`  not handled: ${line}`)
  console.log(JSON.stringify({ perf: 'bad-input', passed, total: CORPUS.length, failures }))
}

function baseFlags(baseUrl: string, input: BadInput, dir: string): string[] {
  const flags = [
    'serve',
    '--base-url',
    baseUrl,
    '--tokenizer',
    'cl100k_base',
    '--num-prompts',
    '2',
    '--disable-tqdm',
  ]
  if (!input.noModel) flags.push('--model', 'm')
  if (!input.noRandomFlags) flags.push('--random-input-len', '16', '--random-output-len', '4')
  // The warned case runs to its end against a server that never answers: bound it.
  if (input.warned) flags.push('--request-timeout', '1')
  return [...flags, ...input.flags.map((flag) => flag.replaceAll('{dir}', dir))]
}

function runCli(
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, HF_HUB_OFFLINE: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c
    })
    // A case that hangs (a FIFO read, a request that never ends) is killed and counted as not handled.
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })
}
