import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { renderMarkdownSummary } from '../summary/markdown.ts'
import type { RunSummary } from '../summary/run-summary.ts'
import { SUMMARY_JSON, writeSummaryFiles } from './summary-files.ts'

const summary: RunSummary = {
  date: '2026-12-01T18:11:01.000Z',
  reason: 'passed',
  benchmarks: [
    {
      file: 'chat.bench.ts',
      name: 'chat',
      state: 'passed',
      verdict: 'pass',
      durationMs: 1500,
      fingerprint: '0123456789abcdef',
      resultFile: null,
      metrics: null,
      verdicts: [],
      errors: [],
    },
  ],
}

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-summary-files-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('writeSummaryFiles', () => {
  it('writes the files asked for into each folder and appends the Markdown to the step summary', async () => {
    const run = join(dir, 'run-1')
    const step = join(dir, 'step.md')
    await writeFile(step, 'earlier shard\n')
    await writeSummaryFiles(summary, {
      folders: [run, dir],
      json: true,
      markdown: true,
      prComment: true,
      stepSummary: step,
      shard: '2/3',
      junit: join(dir, 'reports', 'junit.xml'),
    })
    const markdown = renderMarkdownSummary(summary, { shard: '2/3' })
    for (const folder of [run, dir]) {
      expect(JSON.parse(await readFile(join(folder, SUMMARY_JSON), 'utf8'))).toEqual(summary)
      expect(await readFile(join(folder, 'servebench-summary.md'), 'utf8')).toBe(markdown)
      expect(await readFile(join(folder, 'servebench-pr-comment.md'), 'utf8')).toContain(
        '<!-- servebench:pr-comment -->',
      )
    }
    expect(await readFile(step, 'utf8')).toBe(`earlier shard\n${markdown}\n`)
    expect(await readFile(join(dir, 'reports', 'junit.xml'), 'utf8')).toContain(
      '<testsuites name="servebench"',
    )
    expect((await readdir(run)).sort()).toEqual([
      'servebench-pr-comment.md',
      'servebench-summary.json',
      'servebench-summary.md',
    ])
  })

  it('reports a group it cannot write and still writes the next; without onError it throws', async () => {
    const blocker = join(dir, 'a-file')
    await writeFile(blocker, '')
    const failed: string[] = []
    await writeSummaryFiles(summary, {
      folders: [dir],
      json: true,
      markdown: false,
      junit: join(blocker, 'junit.xml'),
      history: { path: join(dir, 'history.jsonl'), commit: 'abc123' },
      onError: (what) => failed.push(what),
    })
    expect(failed).toEqual(['the JUnit report'])
    const history = (await readFile(join(dir, 'history.jsonl'), 'utf8')).trim().split('\n')
    expect(history.map((line) => JSON.parse(line).commit)).toEqual(['abc123'])
    await expect(
      writeSummaryFiles(summary, { folders: [join(blocker, 'out')], json: true, markdown: false }),
    ).rejects.toThrow(/ENOTDIR/)
  })
})
