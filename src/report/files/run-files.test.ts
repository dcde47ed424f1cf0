import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RequestRecord } from '../../config/records.ts'
import { calculateMetrics, type MetricsOptions } from '../../metrics/calculate.ts'
import { calculatePoolingMetrics } from '../../metrics/calculate-pooling.ts'
import { summariseRuns } from '../result/multi-run.ts'
import { buildPoolingResult } from '../result/pooling-result.ts'
import { buildResult, type ResultSetup } from '../result/result-json.ts'
import type { BenchResult } from '../result/result-types.ts'
import type { RunResult } from '../result/run-result.ts'
import {
  type RunFile,
  type RunFilesOptions,
  writeMultiRunFile,
  writeRunFiles,
  writeSweepFile,
} from './run-files.ts'

const fixture = JSON.parse(
  await readFile(new URL('../../../fixtures/results/records.json', import.meta.url), 'utf8'),
) as { setup: ResultSetup; options: MetricsOptions; records: RequestRecord[] }

const generationResult = (): BenchResult =>
  buildResult(fixture.setup, calculateMetrics(fixture.records, fixture.options), fixture.records)

const generation = (): RunResult => ({ kind: 'generation', result: generationResult() })

const pooling = (): RunResult => ({
  kind: 'pooling',
  result: buildPoolingResult(
    fixture.setup,
    calculatePoolingMetrics(fixture.records, fixture.options),
    fixture.records,
  ),
})

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-run-files-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

function events(): {
  log: string[]
  onWritten(file: RunFile, path: string): void
  onSkipped(file: RunFile, reason: string): void
} {
  const log: string[] = []
  return {
    log,
    onWritten: (file, path) => log.push(`${file} ${path.slice(dir.length + 1)}`),
    onSkipped: (file, reason) => log.push(`skipped ${file}: ${reason}`),
  }
}

/** Options that ask for the result, the timeline and the dataset plot, reported to `e`. */
function everyFile(output: RunFilesOptions['output'], e: ReturnType<typeof events>): RunFilesOptions {
  return { output, naming: {}, result: true, timeline: {}, datasetStats: true, ...e }
}

describe('writeRunFiles', () => {
  it('writes the result, the timeline and the dataset plot of a generation run, in that order', async () => {
    const e = events()
    const written = await writeRunFiles(
      generation(),
      everyFile({ resultDir: dir, resultFilename: 'run.json', saveDetailed: false, appendResult: false }, e),
    )
    expect(e.log).toEqual([
      'result run.json',
      'timeline run.timeline.html',
      'dataset-stats run.dataset_stats.png',
    ])
    expect(Object.keys(written)).toEqual(['result', 'timeline', 'dataset-stats'])
    expect((await readdir(dir)).sort()).toEqual(['run.dataset_stats.png', 'run.json', 'run.timeline.html'])
    // Without --save-detailed the per-request arrays stay out of the file.
    expect(JSON.parse(await readFile(join(dir, 'run.json'), 'utf8'))).not.toHaveProperty('ttfts')
  })

  it('names plots after the result file even when the result is not written', async () => {
    const e = events()
    await writeRunFiles(generation(), {
      output: { resultDir: dir, saveDetailed: false, appendResult: false },
      naming: { label: 'lab', maxConcurrency: 4 },
      result: false,
      timeline: {},
      ...e,
    })
    expect(e.log).toEqual([
      'timeline lab-10.0qps-concurrency4-Llama-3.2-1B-Instruct-20260101-010203.timeline.html',
    ])
  })

  it('skips what a pooling run cannot have, saying why, and still writes its result', async () => {
    const e = events()
    await writeRunFiles(
      pooling(),
      everyFile({ resultDir: dir, resultFilename: 'p.json', saveDetailed: true, appendResult: false }, e),
    )
    expect(e.log).toEqual([
      'result p.json',
      'skipped timeline: a pooling run has no token stream; no timeline written',
      'skipped dataset-stats: the run has no input and output lengths to plot (a pooling run has no output lengths); no plot written',
    ])
    expect(JSON.parse(await readFile(join(dir, 'p.json'), 'utf8'))).not.toHaveProperty('failed')
  })

  it('reports each file it cannot write and goes on, or throws without onError', async () => {
    const blocked = join(dir, 'blocked')
    await writeFile(blocked, 'a file where a folder should be')
    const output = { resultDir: blocked, resultFilename: 'r.json', saveDetailed: false, appendResult: false }
    const failed: RunFile[] = []
    const written = await writeRunFiles(generation(), {
      output,
      naming: {},
      result: true,
      timeline: {},
      onError: (file) => failed.push(file),
    })
    expect(failed).toEqual(['result', 'timeline'])
    expect(written).toEqual({})
    await expect(writeRunFiles(generation(), { output, naming: {}, result: true })).rejects.toThrow()
  })
})

describe('the combined files of a sweep and a multi-run', () => {
  it('are named after the label (else the backend), the model and the date, and need a run', async () => {
    const result = generationResult()
    const output = { resultDir: dir }
    const sweep = await writeSweepFile(
      { parameter: 'request_rate', points: [{ value: 1, result }] },
      { output },
    )
    expect(sweep).toBe(join(dir, 'openai-sweep-request_rate-Llama-3.2-1B-Instruct-20260101-010203.json'))
    const multi = await writeMultiRunFile(
      { results: [result, result], summary: summariseRuns([result, result]) },
      { output, label: 'x' },
    )
    expect(multi).toBe(join(dir, 'x-multi-run-2runs-Llama-3.2-1B-Instruct-20260101-010203.json'))
    expect(await writeSweepFile({ parameter: 'request_rate', points: [] }, { output })).toBeUndefined()
  })
})
