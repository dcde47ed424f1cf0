import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../tokenizer/index.ts'
import { generateRequests } from '../index.ts'
import { parseBurstGptCsv } from './burstgpt.ts'

const FIXTURE = resolve(import.meta.dirname, '../../../fixtures/datasets/burstgpt.csv')
// The fixture's GPT-4 rows with response tokens > 0, as (request, response).
const GPT4 = [
  [417, 276],
  [72, 34],
  [36, 112],
  [164, 19],
  [95, 64],
  [21, 7],
  [310, 150],
]

describe('burstgpt dataset', () => {
  it('keeps GPT-4 rows with response tokens > 0', async () => {
    const rows = parseBurstGptCsv(FIXTURE, await readFile(FIXTURE, 'utf8'))
    expect(rows.map((r) => [r.inputLen, r.outputLen])).toEqual(GPT4)
    expect(rows[0]!.line).toBe(4)
  })

  it('draws rows with the seed and builds prompts of exactly the request-token count', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(
      { kind: 'burstgpt', path: FIXTURE },
      { tokenizer, numPrompts: 5, seed: 0 },
    )
    expect(requests).toHaveLength(5)
    const pairs = requests.map((r) => [r.promptLen, r.expectedOutputLen])
    for (const pair of pairs) expect(GPT4).toContainEqual(pair)
    expect(new Set(pairs.map(String)).size).toBe(5) // without replacement when the file has enough rows
    for (const r of requests) expect((await tokenizer.encode(r.prompt)).length).toBe(r.promptLen)
    const again = await generateRequests(
      { kind: 'burstgpt', path: FIXTURE },
      { tokenizer, numPrompts: 5, seed: 0 },
    )
    expect(again).toEqual(requests)
  })

  it('draws with replacement when asked for more rows than the file has', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(
      { kind: 'burstgpt', path: FIXTURE },
      { tokenizer, numPrompts: 12, seed: 1 },
    )
    expect(requests).toHaveLength(12)
  })

  it('says so when the file has no usable GPT-4 rows', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const dir = await mkdtemp(join(tmpdir(), 'servebench-burst-'))
    const path = join(dir, 'b.csv')
    await writeFile(path, 'Timestamp,Model,Request tokens,Response tokens\n1,ChatGPT,10,5\n2,GPT-4,10,0\n')
    await expect(
      generateRequests({ kind: 'burstgpt', path }, { tokenizer, numPrompts: 1, seed: 0 }),
    ).rejects.toThrow(`burstgpt: ${path} has no GPT-4 rows with response tokens > 0`)
  })

  it('names the file, the line and the column of a bad cell, and lists the columns when one is missing', () => {
    expect(() => parseBurstGptCsv('b.csv', 'Model,Request tokens,Response tokens\nGPT-4,12,x\n')).toThrow(
      'burstgpt: b.csv:2: column "Response tokens" must be a non-negative integer (got "x")',
    )
    expect(() => parseBurstGptCsv('b.csv', 'Model,Request tokens,Tokens out\n')).toThrow(
      'burstgpt: b.csv:1: column "Response tokens" is missing; the columns are "Model", "Request tokens", "Tokens out"',
    )
  })
})
