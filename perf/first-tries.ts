/**
 * `npm run perf -- first-tries`: what a new user's first runs show. Ten short runs (10–50
 * requests at `--request-rate inf`: completions, chat, embeddings, rerank) against `servebench sim`
 * on the default `--client-check fail`, each with its exit code and self-check line; then a client
 * squeezed onto one core beside three busy loops (`taskset`, Linux) reading 64 fast streams (true
 * ITL 2 ms), which must be flagged and exit 4. `FIRST_TRIES_SQUEEZED=5` repeats the squeezed run.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { runChild } from './child-process.ts'
import { startSimProcess } from './client-overhead.ts'
import { countFromEnv } from './env-count.ts'

const RUNS: Array<[string, string[]]> = [
  ['completions, random, 10', ['--num-prompts', '10']],
  ['completions, random, 50', ['--num-prompts', '50']],
  ['completions, prefix_repetition, 20', ['--dataset-name', 'prefix_repetition', '--num-prompts', '20']],
  ['chat, random, 20', ['--backend', 'openai-chat', '--num-prompts', '20']],
  [
    'chat, random, 50, server tokenizer',
    ['--backend', 'openai-chat', '--num-prompts', '50', '--tokenizer', 'server'],
  ],
  [
    'embeddings, 20 × batch 4',
    ['--backend', 'openai-embeddings', '--num-prompts', '20', '--random-batch-size', '4'],
  ],
  ['embeddings, 50', ['--backend', 'openai-embeddings', '--num-prompts', '50']],
  ['rerank, 10', ['--backend', 'vllm-rerank', '--dataset-name', 'random-rerank', '--num-prompts', '10']],
  ['rerank, 30', ['--backend', 'vllm-rerank', '--dataset-name', 'random-rerank', '--num-prompts', '30']],
  ['completions, random, 30, undici', ['--num-prompts', '30', '--http-transport', 'undici']],
]

/** Runs the ten first tries and the squeezed client, printing one line each. */
export async function printFirstTries(): Promise<void> {
  console.log(
    `first tries: ten short runs at --request-rate inf, --client-check fail (load ${loadavg()[0]!.toFixed(2)})`,
  )
  const sim = await startSimProcess([])
  try {
    for (const [name, flags] of RUNS) {
      const tokenizer = flags.includes('--tokenizer') ? [] : ['--tokenizer', 'cl100k_base']
      const run = await serve([
        '--base-url',
        sim.url,
        '--disable-tqdm',
        ...tokenizer,
        ...flags,
        '--request-rate',
        'inf',
      ])
      console.log(
        `  ${name}: exit ${run.code}, ${run.duration}; ${run.line} (load ${loadavg()[0]!.toFixed(2)})`,
      )
    }
  } finally {
    await sim.stop()
  }
  await printSqueezed()
}

async function printSqueezed(): Promise<void> {
  if (process.platform !== 'linux') return
  const runs = countFromEnv('FIRST_TRIES_SQUEEZED', 3)
  console.log(
    'squeezed client: taskset -c 0 beside three busy loops on core 0, 64 streams of 64 tokens, true ITL 2 ms',
  )
  const sim = await startSimProcess(['--ttft-ms', '20', '--itl-ms', '2'])
  const loops: ChildProcess[] = Array.from({ length: 3 }, () =>
    spawn('taskset', ['-c', '0', process.execPath, '-e', 'for (;;) {}'], { stdio: 'ignore' }),
  )
  try {
    for (let i = 0; i < runs; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'servebench-squeezed-'))
      try {
        const run = await serve(
          [
            '--base-url',
            sim.url,
            '--disable-tqdm',
            '--tokenizer',
            'cl100k_base',
            '--num-prompts',
            '128',
            '--max-concurrency',
            '64',
            '--random-input-len',
            '32',
            '--random-output-len',
            '64',
            '--save-result',
            '--result-dir',
            dir,
          ],
          ['taskset', '-c', '0'],
        )
        const [file] = readdirSync(dir)
        const result = file ? JSON.parse(readFileSync(join(dir, file), 'utf8')) : {}
        const tpot =
          typeof result.mean_tpot_ms === 'number' ? `mean TPOT ${result.mean_tpot_ms.toFixed(2)} ms` : ''
        console.log(`  ${i + 1}. exit ${run.code}, ${run.duration}, ${tpot}; ${run.line}`)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  } finally {
    for (const loop of loops) loop.kill('SIGKILL')
    await sim.stop()
  }
}

async function serve(
  flags: string[],
  wrap: string[] = [],
): Promise<{ code: number | null; line: string; duration: string }> {
  const [command, ...prefix] = [...wrap, process.execPath]
  const { code, stdout, stderr } = await runChild(command!, [
    ...prefix,
    'bin/servebench.js',
    'serve',
    ...flags,
  ])
  const line = /^Client self-check: .*$/m.exec(stdout)?.[0] ?? `no self-check line: ${stderr.slice(-300)}`
  const duration = /^Benchmark duration \(s\):\s+([\d.]+)/m.exec(stdout)?.[1]
  return { code, line, duration: duration ? `${duration} s` : 'no duration' }
}
