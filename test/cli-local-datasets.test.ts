import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { loadTokenizer } from '../src/tokenizer/index.ts'
import { ROOT, readOnlyResult, runCli, test } from './helpers.ts'

const FIXTURES = join(ROOT, 'fixtures/datasets')

interface Detailed {
  completed: number
  failed: number
  input_lens: number[]
  output_lens: number[]
  start_times: number[]
}

/** One `servebench serve` run with a detailed result; returns the parsed result. */
async function serve(url: string, dir: string, args: string[]): Promise<Detailed> {
  const run = await runCli([
    'serve',
    '--base-url',
    url,
    '--tokenizer',
    'cl100k_base',
    '--disable-tqdm',
    '--save-result',
    '--save-detailed',
    '--result-dir',
    dir,
    ...args,
  ])
  expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
  expect(run.code, run.stderr).toBe(0)
  return (await readOnlyResult(dir)) as unknown as Detailed
}

describe('servebench serve with the local-file and synthetic datasets', () => {
  test('custom: each line once, its output_tokens with -1', async ({ sim, tmpDir }) => {
    const result = await serve(sim.url, tmpDir, [
      '--dataset-name',
      'custom',
      '--dataset-path',
      join(FIXTURES, 'custom.jsonl'),
      '--custom-output-len',
      '-1',
      '--skip-chat-template',
      '--num-prompts',
      '6',
    ])
    expect(result.completed).toBe(6)
    expect(result.output_lens.slice().sort((a, b) => a - b)).toEqual([8, 12, 16, 20, 24, 32])
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const lines = (await readFile(join(FIXTURES, 'custom.jsonl'), 'utf8')).split('\n').filter(Boolean)
    const expected = await Promise.all(
      lines.map(async (l) => (await tokenizer.encode((JSON.parse(l) as { prompt: string }).prompt)).length),
    )
    expect(result.input_lens.slice().sort((a, b) => a - b)).toEqual(expected.sort((a, b) => a - b))
  })

  test('sonnet: built-in text, prompts within --sonnet-input-len', async ({ sim, tmpDir }) => {
    const result = await serve(sim.url, tmpDir, [
      '--dataset-name',
      'sonnet',
      '--sonnet-input-len',
      '120',
      '--sonnet-prefix-len',
      '40',
      '--sonnet-output-len',
      '4',
      '--num-prompts',
      '5',
    ])
    expect(result.completed).toBe(5)
    for (const len of result.input_lens) expect(len).toBeLessThanOrEqual(120)
    expect(result.output_lens).toEqual([4, 4, 4, 4, 4])
  })

  test('prefix_repetition: exact prompt lengths', async ({ sim, tmpDir }) => {
    const result = await serve(sim.url, tmpDir, [
      '--dataset-name',
      'prefix-repetition',
      '--prefix-repetition-prefix-len',
      '24',
      '--prefix-repetition-suffix-len',
      '8',
      '--prefix-repetition-num-prefixes',
      '2',
      '--prefix-repetition-output-len',
      '3',
      '--num-prompts',
      '6',
    ])
    expect(result.completed).toBe(6)
    expect(result.input_lens).toEqual([32, 32, 32, 32, 32, 32])
    expect(result.output_lens).toEqual([3, 3, 3, 3, 3, 3])
  })

  test('burstgpt: lengths from the GPT-4 rows', async ({ sim, tmpDir }) => {
    const result = await serve(sim.url, tmpDir, [
      '--dataset-name',
      'burstgpt',
      '--dataset-path',
      join(FIXTURES, 'burstgpt.csv'),
      '--num-prompts',
      '4',
    ])
    expect(result.completed).toBe(4)
    const gpt4 = ['417,276', '72,34', '36,112', '164,19', '95,64', '21,7', '310,150']
    result.input_lens.forEach((len, i) => {
      expect(gpt4).toContain(`${len},${result.output_lens[i]}`)
    })
  })

  test('speed-bench and spec_bench: first turns with the fixed output length', async ({ sim, tmpDir }) => {
    const speed = await serve(sim.url, tmpDir, [
      '--dataset-name',
      'speed-bench',
      '--dataset-path',
      join(FIXTURES, 'speed-bench'),
      '--speed-bench-config',
      'qualitative',
      '--speed-bench-category',
      'coding',
      '--speed-bench-output-len',
      '5',
      '--num-prompts',
      '3',
    ])
    expect(speed.completed).toBe(3)
    expect(speed.output_lens).toEqual([5, 5, 5])
    const specDir = await mkdtemp(join(tmpDir, 'spec-'))
    const spec = await serve(sim.url, specDir, [
      '--dataset-name',
      'spec_bench',
      '--dataset-path',
      join(FIXTURES, 'spec-bench/question.jsonl'),
      '--spec-bench-output-len',
      '4',
      '--num-prompts',
      '4',
    ])
    expect(spec.completed).toBe(4)
    expect(spec.output_lens).toEqual([4, 4, 4, 4])
  })

  test('timed_trace: token-id prompts sent at the trace timestamps', async ({ sim, tmpDir }) => {
    const args = [
      '--dataset-name',
      'timed_trace',
      '--dataset-path',
      join(FIXTURES, 'timed-trace.jsonl'),
      '--timed-trace-sec-multiplier',
      '0.001',
      '--num-prompts',
      '6',
    ]
    const timed = await serve(sim.url, tmpDir, args)
    expect(timed.completed).toBe(6)
    // Prompt lengths: the hash chunks (16 tokens each) up to input_length; [7] alone gives 16 of 100.
    expect(timed.input_lens).toEqual([40, 32, 48, 20, 64, 16])
    expect(timed.output_lens).toEqual([6, 4, 8, 5, 3, 4])
    const offsetsS = [0, 0.15, 0.3, 0.6, 0.65, 0.9]
    const startsS = timed.start_times.map((t) => t - timed.start_times[0]!)
    // Never earlier than the trace says, in trace order, and the whole span replayed. Offsets are
    // measured from the first request's start, so a late first request (a busy machine) shifts every
    // later one earlier by its own lateness: the slack allows 50 ms of it.
    startsS.forEach((s, i) => {
      expect(s).toBeGreaterThanOrEqual(offsetsS[i]! - 0.05)
      if (i > 0) expect(s).toBeGreaterThanOrEqual(startsS[i - 1]!)
    })
    expect(startsS[5]! - startsS[2]!).toBeGreaterThan(0.5)
    // --no-self-timed (all at once) is judged on the wall clock: test/serial/dataset-timings.test.ts.
  })

  test('bad input exits 2 naming the file, line and field, or the valid dataset names', async ({
    sim,
    tmpDir,
  }) => {
    const unknown = await runCli(['serve', '--base-url', sim.url, '--dataset-name', 'sharegtp'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/--dataset-name must be one of random, .*custom, .*sonnet, .*timed_trace/)
    const bad = join(tmpDir, 'bad.jsonl')
    await writeFile(bad, '{"prompt": "fine"}\n{"prompt": 3}\n')
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--tokenizer',
      'cl100k_base',
      '--dataset-name',
      'custom',
      '--dataset-path',
      bad,
      '--num-prompts',
      '2',
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`custom: ${bad}:2: field "prompt" must be a string (got number)`)
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
  })
})
