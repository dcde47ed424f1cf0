import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../tokenizer/index.ts'
import { generateRequests } from '../index.ts'
import type { SonnetDatasetConfig } from './sonnet.ts'
import { BUILTIN_SONNET_PATH, SONNET_BASE_PROMPT, splitLines } from './sonnet.ts'

function sonnet(overrides: Partial<SonnetDatasetConfig> = {}): SonnetDatasetConfig {
  return { kind: 'sonnet', inputLen: 550, outputLen: 150, prefixLen: 200, ...overrides }
}

describe('sonnet dataset', () => {
  it('ships the built-in sonnets with the package', async () => {
    const lines = splitLines(await readFile(BUILTIN_SONNET_PATH, 'utf8'))
    expect(lines.length).toBeGreaterThanOrEqual(250)
    expect(lines[0]).toBe('From fairest creatures we desire increase,\n')
  })

  it('builds prompts within inputLen that share the base prompt and the prefix lines', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const requests = await generateRequests(sonnet(), { tokenizer, numPrompts: 20, seed: 0 })
    expect(requests).toHaveLength(20)
    const lines = splitLines(await readFile(BUILTIN_SONNET_PATH, 'utf8'))
    for (const r of requests) {
      expect(r.prompt.startsWith(SONNET_BASE_PROMPT + lines.slice(0, 10).join(''))).toBe(true)
      expect(r.promptLen).toBe((await tokenizer.encode(r.prompt, { addSpecialTokens: true })).length)
      expect(r.promptLen).toBeLessThanOrEqual(550)
      // round((550 - base)/avg) lines land close to the target.
      expect(r.promptLen).toBeGreaterThan(400)
      expect(r.expectedOutputLen).toBe(150)
    }
    expect(new Set(requests.map((r) => r.prompt)).size).toBeGreaterThan(15)
  })

  it('is reproducible with the seed', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const run = (seed: number) =>
      generateRequests(sonnet({ inputLen: 200, prefixLen: 50 }), { tokenizer, numPrompts: 5, seed })
    expect(await run(3)).toEqual(await run(3))
    expect((await run(3)).map((r) => r.prompt)).not.toEqual((await run(4)).map((r) => r.prompt))
  })

  it('says how many prompts fit when most drawn lines overflow inputLen', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const base = (await tokenizer.encode(SONNET_BASE_PROMPT, { addSpecialTokens: true })).length
    // One short line and 29 long ones: one line per prompt, and only the short one fits (p = 1/30 < 1/20).
    const long = `${'the quick brown fox jumps over the lazy dog '.repeat(8).trim()}\n`
    const path = join(await mkdtemp(join(tmpdir(), 'servebench-sonnet-')), 'lines.txt')
    await writeFile(path, `Hi\n${long.repeat(29)}`)
    await expect(
      generateRequests(sonnet({ path, inputLen: base + 40, prefixLen: 0 }), {
        tokenizer,
        numPrompts: 100,
        seed: 0,
      }),
    ).rejects.toThrow(
      new RegExp(
        `^sonnet: only \\d+ of 100 prompts fit in --sonnet-input-len ${base + 40} after 2000 draws; raise --sonnet-input-len$`,
      ),
    )
  })

  it('rejects an input length not above the base prompt', async () => {
    const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
    const base = (await tokenizer.encode(SONNET_BASE_PROMPT, { addSpecialTokens: true })).length
    await expect(
      generateRequests(sonnet({ inputLen: base }), { tokenizer, numPrompts: 1, seed: 0 }),
    ).rejects.toThrow(
      `--sonnet-input-len must be more than the ${base} tokens of the base prompt (got ${base})`,
    )
  })
})
