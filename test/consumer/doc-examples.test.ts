import { describe, expect, it } from 'vitest'
import { ROOT } from '../helpers.ts'
import { docExamples, readDocExamples } from './doc-examples.ts'

// The consumer test (run.ts, after `npm test` in .ci/run) runs these in a fresh project; this
// checks, within `npm test`, that the docs still mark them.
describe('the docs examples the consumer test runs', () => {
  it('are the setup and first benchmark of dsl.md and the simulator started from code', () => {
    const projects = readDocExamples(ROOT)
    const shape = Object.fromEntries(
      [...projects].map(([project, files]) => [project, files.map((f) => `${f.doc} → ${f.file}`)]),
    )
    expect(shape).toEqual({
      'first-benchmark': ['docs/dsl.md → vitest.config.ts', 'docs/dsl.md → chat.bench.ts'],
      'sim-from-code': ['docs/simulator.md → start.mjs'],
    })
    const bench = projects.get('first-benchmark')![1]!.code
    expect(bench).toMatch(
      /^\/\/ chat\.bench\.ts\nimport \{ datasets, endpoint, load, serveBench \} from 'servebench'\n/,
    )
    expect(bench).toMatch(/\}\)\n$/)
    expect(projects.get('sim-from-code')![0]!.code).toContain("from 'servebench'")
  })

  it('is an error naming the doc and line when a marker does not mark a block', () => {
    const doc = (...lines: string[]): string => lines.join('\n')
    expect(
      docExamples('a.md', doc('x', '<!-- servebench-example: p/f.ts -->', '```ts', 'code', '```')),
    ).toEqual([{ doc: 'a.md', line: 2, project: 'p', file: 'f.ts', code: 'code\n' }])
    expect(() => docExamples('a.md', doc('<!-- servebench-example: p/f.ts -->', '', '```ts', '```'))).toThrow(
      'a.md:1: the example marker is not followed by a fenced code block',
    )
    expect(() => docExamples('a.md', doc('<!-- servebench-example: f.ts -->', '```ts', '```'))).toThrow(
      'a.md:1: an example marker names project/file (got "f.ts")',
    )
    expect(() => docExamples('b.md', doc('', '<!-- servebench-example: p/f.ts -->', '```ts', 'x'))).toThrow(
      "b.md:2: the example's code block is not closed",
    )
  })
})
