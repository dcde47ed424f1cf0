import { mkdtemp, readFile, readlink, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { type FakeHub, fromCacheOnly, sha256, startFakeHub, stubHubEnv } from '../../../test/fake-hub.ts'
import { writeParquet } from '../../../test/parquet-writer.ts'
import { loadTokenizer, type Tokenizer } from '../../tokenizer/index.ts'
import type { HfDatasetConfig } from './hf.ts'
import { generateHf } from './hf.ts'

const SHAREGPT = resolve(import.meta.dirname, '../../../fixtures/datasets/sharegpt-small.json')
const COMMIT = 'd'.repeat(40)
const PARQUET_COMMIT = 'e'.repeat(40)

const QA = Array.from({ length: 12 }, (_, i) => ({
  question: `Question number ${i}: how many apples are left if you start with ${i + 5} and eat two?`,
  answer: `You have ${i + 3} apples left, because ${i + 5} minus two is ${i + 3}.`,
}))
const TEST_QA = [{ question: 'This row only lives in the test split of the export.', answer: 'Yes it does.' }]

let tokenizer: Tokenizer
beforeAll(async () => {
  tokenizer = await loadTokenizer({ id: 'cl100k_base' })
})

describe('hf datasets from the hub', () => {
  let home: string
  let hub: FakeHub
  let trainShard0: Buffer
  let sharegptBytes: Buffer
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servebench-hf-ds-'))
    trainShard0 = writeParquet(QA.slice(0, 6))
    sharegptBytes = await readFile(SHAREGPT)
    hub = await startFakeHub({
      repos: [
        {
          type: 'dataset',
          id: 'org/qa',
          commit: COMMIT,
          files: { 'README.md': '# qa' },
          parquetCommit: PARQUET_COMMIT,
          parquetExport: {
            'main/train/0000.parquet': trainShard0,
            'main/train/0001.parquet': writeParquet(QA.slice(6)),
            'main/test/0000.parquet': writeParquet(TEST_QA),
          },
        },
        {
          type: 'dataset',
          id: 'Aeala/ShareGPT_Vicuna_unfiltered',
          commit: COMMIT,
          files: { 'ShareGPT_V4.3_unfiltered_cleaned_split.json': sharegptBytes },
        },
        {
          type: 'dataset',
          id: 'org/ids-only',
          commit: COMMIT,
          files: { 'train.jsonl': '{"id": 1, "label": 0}\n' },
        },
      ],
    })
    stubHubEnv(hub, home)
  })
  afterEach(async () => {
    vi.unstubAllEnvs()
    await hub.close()
    await rm(home, { recursive: true, force: true })
  })

  const qa: HfDatasetConfig = { kind: 'hf', path: 'org/qa', disableShuffle: false, noOversample: false }

  it('reads the parquet export of the default split (train) with auto-detected question/answer columns', async () => {
    const requests = await generateHf(qa, { tokenizer, numPrompts: 12, seed: 0 })
    expect(requests).toHaveLength(12)
    const byPrompt = new Map(QA.map((r) => [r.question, r.answer]))
    for (const request of requests) {
      expect(byPrompt.has(request.prompt)).toBe(true)
      expect(request.promptLen).toBe((await tokenizer.encode(request.prompt)).length)
      expect(request.expectedOutputLen).toBe((await tokenizer.encode(byPrompt.get(request.prompt)!)).length)
    }
    expect(hub.requests).toContain('GET /ds/splits?dataset=org%2Fqa')
    expect(hub.requests).toContain('GET /ds/parquet?dataset=org%2Fqa')
  })

  it('caches shards under refs/convert/parquet the way huggingface_hub does', async () => {
    await generateHf(qa, { tokenizer, numPrompts: 12, seed: 0 })
    const dir = join(home, 'hub', 'datasets--org--qa')
    expect(await readFile(join(dir, 'refs', 'refs', 'convert', 'parquet'), 'utf8')).toBe(PARQUET_COMMIT)
    expect(await readlink(join(dir, 'snapshots', PARQUET_COMMIT, 'main', 'train', '0000.parquet'))).toBe(
      `../../../../blobs/${sha256(trainShard0)}`,
    )
  })

  it('takes --hf-split and --hf-output-len, and rejects an unknown split with the valid ones', async () => {
    const test = await generateHf(
      { ...qa, split: 'test', outputLen: 50, noOversample: true },
      { tokenizer, numPrompts: 5, seed: 0 },
    )
    expect(test).toEqual([
      {
        prompt: TEST_QA[0]!.question,
        promptLen: (await tokenizer.encode(TEST_QA[0]!.question)).length,
        expectedOutputLen: 50,
      },
    ])
    await expect(generateHf({ ...qa, split: 'dev' }, { tokenizer, numPrompts: 5, seed: 0 })).rejects.toThrow(
      'hf: --hf-split "dev" is not a split of org/qa (config main); valid: train, test',
    )
  })

  it('is reproducible for a seed, keeps order with --disable-shuffle, and oversamples', async () => {
    const a = await generateHf(qa, { tokenizer, numPrompts: 30, seed: 4 })
    const b = await generateHf(qa, { tokenizer, numPrompts: 30, seed: 4 })
    expect(a).toHaveLength(30)
    expect(a).toEqual(b)
    const ordered = await generateHf({ ...qa, disableShuffle: true }, { tokenizer, numPrompts: 12, seed: 4 })
    expect(ordered.map((r) => r.prompt)).toEqual(QA.map((r) => r.question))
  })

  it('loads again with HF_HUB_OFFLINE=1 from the cache alone', async () => {
    const first = await generateHf(qa, { tokenizer, numPrompts: 12, seed: 2 })
    const again = await fromCacheOnly(hub, () => generateHf(qa, { tokenizer, numPrompts: 12, seed: 2 }))
    expect(again).toEqual(first)
  })

  it('offline with no cache says what to download and where', async () => {
    vi.stubEnv('HF_HUB_OFFLINE', '1')
    await expect(generateHf(qa, { tokenizer, numPrompts: 1, seed: 0 })).rejects.toThrow(
      'hf: cannot get org/qa from the hub: HF_HUB_OFFLINE is set and no cached snapshot for dataset org/qa ' +
        '(revision main). Download it first without HF_HUB_OFFLINE (or with `hf download org/qa --repo-type dataset`); ' +
        `it is cached at ${join(home, 'hub', 'datasets--org--qa', 'snapshots', '<commit>')}`,
    )
  })

  it('reads the conversation family (Aeala/ShareGPT_Vicuna_unfiltered) from the repo JSON with Python filters', async () => {
    const requests = await generateHf(
      { kind: 'hf', path: 'Aeala/ShareGPT_Vicuna_unfiltered', disableShuffle: true, noOversample: true },
      { tokenizer, numPrompts: 100, seed: 0 },
    )
    expect(requests).toHaveLength(10)
    expect(requests[0]!.prompt).toMatch(/^Please explain the water cycle/)
    expect(hub.requests).toContain('GET /api/datasets/Aeala/ShareGPT_Vicuna_unfiltered/revision/main')
  })

  it('lists the available columns when none can be the prompt', async () => {
    await expect(
      generateHf(
        { kind: 'hf', path: 'org/ids-only', disableShuffle: false, noOversample: false },
        { tokenizer, numPrompts: 1, seed: 0 },
      ),
    ).rejects.toThrow('hf: no prompt column found; the columns are: id, label.')
    await expect(
      generateHf({ ...qa, textColumn: 'body' }, { tokenizer, numPrompts: 1, seed: 0 }),
    ).rejects.toThrow('hf: --hf-text-column "body" is not a column; the columns are: question, answer')
  })

  it('explains a 401 from a gated dataset', async () => {
    await hub.close()
    hub = await startFakeHub({ requireToken: 't', repos: [] })
    vi.stubEnv('HF_ENDPOINT', hub.endpoint)
    vi.stubEnv('SERVEBENCH_HF_DATASETS_SERVER', hub.datasetsServer)
    await expect(generateHf(qa, { tokenizer, numPrompts: 1, seed: 0 })).rejects.toThrow(
      `hf: cannot read org/qa: ${hub.datasetsServer}/splits?dataset=org%2Fqa answered 401: ` +
        'the repository is private or gated; set HF_TOKEN to a token that can read it',
    )
  })
})
