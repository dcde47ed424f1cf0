import { expect } from 'vitest'
import { parseArgs } from '../../src/cli/parse-args.ts'
import type { BenchConfig } from '../../src/config/bench-config.ts'
import { resolveServeFlags } from '../../src/options/serve-flags.ts'
import { writeResult } from '../../src/report/files/write.ts'
import type { BenchResult } from '../../src/report/result/result-types.ts'
import { type RunOutcome, runBenchmark } from '../../src/runner/run-benchmark.ts'
import { readOnlyResult } from '../helpers.ts'

/** The simulator's fixed TTFT in the `sim` fixture. */
export const FIXED_TTFT_S = 0.04

/** `servebench serve` flags for a small, detailed run against `baseUrl`. */
export function smallRunFlags(baseUrl: string, extra: string[] = []): string[] {
  return [
    '--base-url',
    baseUrl,
    '--model',
    'servebench/sim-model',
    '--tokenizer',
    'cl100k_base',
    '--random-input-len',
    '32',
    '--random-output-len',
    '8',
    '--num-prompts',
    '20',
    '--max-concurrency',
    '4',
    '--disable-tqdm',
    ...extra,
  ]
}

export function configFrom(args: string[]): BenchConfig {
  return resolveServeFlags(parseArgs(args), {})
}

/** Runs the benchmark in-process, writes the detailed JSON into `dir`, validates it and reads it back. */
export async function runAndWrite(
  config: BenchConfig,
  dir: string,
): Promise<{ outcome: RunOutcome; file: BenchResult }> {
  const outcome = await runBenchmark(config)
  config.output = { ...config.output, saveResult: true, saveDetailed: true, resultDir: dir }
  await writeResult(outcome.result, config.output, {})
  const file = (await readOnlyResult(dir)) as BenchResult
  return { outcome, file }
}

/** TTFTs (s) of the requests that succeeded. */
export function healthyTtfts(file: BenchResult): number[] {
  return file.ttfts.filter((_, i) => file.errors[i] === '')
}

/**
 * The healthy requests were all measured, and none faster than the fixed mode allows. Only a lower
 * bound: a busy machine adds time to any request (upper bounds live in the serial project).
 */
export function expectHealthyTimings(file: BenchResult, atLeast: number): void {
  const ttfts = healthyTtfts(file)
  expect(ttfts.length).toBeGreaterThanOrEqual(atLeast)
  expect(Math.min(...ttfts)).toBeGreaterThanOrEqual(FIXED_TTFT_S)
}
