import { serveBench } from 'servebench'
import { expect, test } from 'vitest'
import { small } from './workload.ts'

// Vitest 5 only (test/vitest5.test.ts): servebench's benchmark provider records the serveBench run
// in Vitest's benchmark table, and runs a plain bench() function on tinybench beside it.
serveBench('a serving benchmark in the table', small)

type BenchFixture = (
  name: string,
  fn: () => unknown,
) => { run(options?: { time?: number }): Promise<{ latency: { samplesCount: number } }> }

// Vitest 4's types have no `bench` fixture; Vitest reads the destructured parameter to set it up.
const withBench = async ({ bench }: { bench: BenchFixture }): Promise<void> => {
  const result = await bench('a function benchmark', () => JSON.stringify({ a: 1 })).run({ time: 50 })
  expect(result.latency.samplesCount).toBeGreaterThan(10)
}
test('a bench() function beside it', withBench as unknown as Parameters<typeof test>[1])
