import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { OutputConfig } from '../../config/bench-config.ts'
import type { RequestRecord } from '../../config/records.ts'
import { calculateMetrics, type MetricsOptions } from '../../metrics/calculate.ts'
import { buildResult, type ResultSetup } from '../result/result-json.ts'
import type { BenchResult } from '../result/result-types.ts'
import { validateResultFile } from '../result/schema/index.ts'
import { timelinePath, writeDatasetStats, writeResult } from './write.ts'

const fixture = JSON.parse(
  await readFile(new URL('../../../fixtures/results/records.json', import.meta.url), 'utf8'),
) as { setup: ResultSetup; options: MetricsOptions; records: RequestRecord[] }

function result(setup: Partial<ResultSetup> = {}): BenchResult {
  const metrics = calculateMetrics(fixture.records, fixture.options)
  return buildResult({ ...fixture.setup, ...setup }, metrics, fixture.records)
}

const output = (o: Partial<OutputConfig>): OutputConfig => ({
  saveResult: true,
  saveDetailed: false,
  appendResult: false,
  ...o,
})

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-write-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('writeResult', () => {
  it('creates --result-dir, names the file as Python does, and writes one line without a newline', async () => {
    const resultDir = join(dir, 'a', 'b')
    const path = await writeResult(result(), output({ resultDir }), { maxConcurrency: 2 })
    expect(path).toBe(
      join(resultDir, 'openai-10.0qps-concurrency2-Llama-3.2-1B-Instruct-20260101-010203.json'),
    )
    const text = await readFile(path, 'utf8')
    expect(text).not.toContain('\n')
    expect(text.startsWith('{"date": "20260101-010203", "endpoint_type": "openai"')).toBe(true)
    const parsed = JSON.parse(text)
    expect(parsed).not.toHaveProperty('latencies')
    expect(parsed.completed).toBe(3)
    expect(validateResultFile(parsed)).toEqual({ valid: true })
  })

  it('keeps the per-request arrays with --save-detailed and the file validates', async () => {
    const path = await writeResult(result(), output({ resultDir: dir, saveDetailed: true }), {})
    const parsed = JSON.parse(await readFile(path, 'utf8'))
    expect(parsed.latencies).toEqual([0.083, 0, 0.2, 0.6])
    expect(parsed.generated_texts[2]).toBe('é')
    expect(validateResultFile(parsed)).toEqual({ valid: true })
  })

  it('writes an infinite rate as "inf" and the file validates', async () => {
    const r = result({ requestRate: Number.POSITIVE_INFINITY, maxConcurrency: undefined })
    const path = await writeResult(r, output({ resultDir: dir }), {})
    expect(path.endsWith('openai-infqps-Llama-3.2-1B-Instruct-20260101-010203.json')).toBe(true)
    const parsed = JSON.parse(await readFile(path, 'utf8'))
    expect(parsed.request_rate).toBe('inf')
    expect(validateResultFile(parsed)).toEqual({ valid: true })
  })

  it('overwrites without --append-result', async () => {
    const o = output({ resultDir: dir, resultFilename: 'r.json' })
    await writeResult(result(), o, {})
    const path = await writeResult(result({ numPrompts: 9 }), o, {})
    expect(JSON.parse(await readFile(path, 'utf8')).num_prompts).toBe(9)
  })

  it('appends JSON Lines: a newline before each record in a non-empty file, none at the end', async () => {
    const o = output({ resultDir: dir, resultFilename: 'runs.jsonl', appendResult: true })
    await writeResult(result({ numPrompts: 1 }), o, {})
    const path = await writeResult(result({ numPrompts: 2 }), o, {})
    const text = await readFile(path, 'utf8')
    expect(text.endsWith('}')).toBe(true)
    const lines = text.split('\n')
    expect(lines.map((line) => JSON.parse(line).num_prompts)).toEqual([1, 2])
    for (const line of lines) expect(validateResultFile(JSON.parse(line))).toEqual({ valid: true })
  })

  it('starts an empty existing file without a leading newline', async () => {
    const path = join(dir, 'empty.json')
    await writeFile(path, '')
    await writeResult(result(), output({ resultFilename: path, appendResult: true }), {})
    expect((await readFile(path, 'utf8')).startsWith('{')).toBe(true)
  })

  it('ignores --result-dir for an absolute --result-filename, as os.path.join does', async () => {
    const abs = join(dir, 'abs.json')
    const path = await writeResult(
      result(),
      output({ resultDir: join(dir, 'other'), resultFilename: abs }),
      {},
    )
    expect(path).toBe(abs)
    expect(JSON.parse(await readFile(abs, 'utf8')).backend).toBe('openai')
  })
})

describe('the plot files beside a result (Python: Path(file_name).with_suffix(...))', () => {
  it('replace the result name’s last suffix, whatever it is, or add one', () => {
    expect(timelinePath('out/openai-infqps-m-20260101-000000.json')).toBe(
      'out/openai-infqps-m-20260101-000000.timeline.html',
    )
    expect(timelinePath('runs.jsonl')).toBe('runs.timeline.html')
    expect(timelinePath('out/run.txt')).toBe('out/run.timeline.html')
    expect(timelinePath('vllm-2.5qps-m.json')).toBe('vllm-2.5qps-m.timeline.html')
    expect(timelinePath('out.d/result')).toBe('out.d/result.timeline.html')
    expect(timelinePath('.json')).toBe('.json.timeline.html')
  })

  it('writes the dataset statistics PNG under that name, creating its folder', async () => {
    const path = await writeDatasetStats(Uint8Array.of(1, 2, 3), join(dir, 'nested', 'result.v2'))
    expect(path).toBe(join(dir, 'nested', 'result.dataset_stats.png'))
    expect([...(await readFile(path))]).toEqual([1, 2, 3])
  })
})
