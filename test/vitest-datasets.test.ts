import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { type FakeHub, startFakeHub } from './fake-hub.ts'
import { writeParquet } from './parquet-writer.ts'
import { latestRunFolder, runVitest } from './vitest-helpers.ts'

// One serveBench per dataset builder (test/projects/datasets), end to end through the Vitest face.
const EXPECTED_COMPLETED: Record<string, number> = {
  random: 4,
  randomMm: 3,
  randomRerank: 2,
  sharegpt: 4,
  hf: 4,
  custom: 4,
  sonnet: 3,
  prefixRepetition: 4,
  burstgpt: 3,
  speedBench: 3,
  specBench: 3,
  timedTrace: 5,
  customImage: 3,
  customAudio: 3,
}

let dir: string
let hub: FakeHub
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-datasets-'))
  const rows = Array.from({ length: 6 }, (_, i) => ({
    question: `What is ${i} plus ${i}, written out as a full sentence?`,
    answer: `${i} plus ${i} is ${2 * i}.`,
  }))
  hub = await startFakeHub({
    repos: [
      {
        type: 'dataset',
        id: 'org/qa',
        commit: 'a'.repeat(40),
        files: {},
        parquetExport: { 'default/train/0000.parquet': writeParquet(rows) },
      },
    ],
  })
})
afterAll(async () => {
  await hub?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('a suite with every dataset', () => {
  it('runs each dataset builder against the simulator and writes a valid result for each', async () => {
    const resultDir = join(dir, 'results')
    const run = await runVitest('datasets', ['bench', '--run'], {
      SB_RESULT_DIR: resultDir,
      HF_HOME: join(dir, 'hf-home'),
      HF_HUB_CACHE: undefined,
      HF_HUB_OFFLINE: undefined,
      HF_ENDPOINT: hub.endpoint,
      SERVEBENCH_HF_DATASETS_SERVER: hub.datasetsServer,
    })
    expect(run.output).not.toMatch(/✗|FAIL/)
    expect(run.code).toBe(0)

    const runDir = await latestRunFolder(resultDir)
    const files = (await readdir(runDir)).filter((f) => f.startsWith('datasets-datasets-'))
    for (const [name, completed] of Object.entries(EXPECTED_COMPLETED)) {
      const matching = files.filter((f) => f.startsWith(`datasets-datasets-${name}-`))
      expect(matching, name).toHaveLength(1)
      const result = JSON.parse(await readFile(join(runDir, matching[0]!), 'utf8'))
      expect(validateResultFile(result), name).toEqual({ valid: true })
      expect(result.completed, name).toBe(completed)
    }
    expect(files).toHaveLength(Object.keys(EXPECTED_COMPLETED).length)
  })
})
