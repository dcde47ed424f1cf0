import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runVitest } from './vitest-helpers.ts'

// SERVEBENCH_SEGMENT=i/n vitest bench: each process sends its share and writes a segment file;
// SERVEBENCH_MERGE_SEGMENTS=<dir> vitest bench: the suite's assertions judge the merged segments.
describe('segments in suites', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servebench-suite-segments-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  // Three Vitest processes (two of them at once): slow on a loaded machine.
  it('two segment runs write their shares, and the merge run passes on all 24 requests', {
    timeout: 180_000,
  }, async () => {
    const segments = join(dir, 'segments')
    const shares = await Promise.all(
      [0, 1].map((i) =>
        runVitest('segments', ['bench', '--run'], {
          SERVEBENCH_SEGMENT: `${i}/2`,
          SERVEBENCH_SEGMENT_DIR: segments,
          SB_RESULT_DIR: join(dir, `results-${i}`),
        }),
      ),
    )
    // A share alone holds 12 requests; its assertions (24 completed) are not run on it.
    for (const share of shares) expect(share.code, share.output).toBe(0)
    const files = (await readdir(segments)).sort()
    expect(files).toHaveLength(2)
    expect(files[0]).toMatch(/^[0-9a-f]{16}\.segment-0-of-2\.json$/)
    expect(files[1]).toMatch(/^[0-9a-f]{16}\.segment-1-of-2\.json$/)

    const merged = await runVitest('segments', ['bench', '--run'], {
      SERVEBENCH_MERGE_SEGMENTS: segments,
      SB_RESULT_DIR: join(dir, 'results-merged'),
    })
    expect(merged.code, merged.output).toBe(0)
    const results = await readdir(join(dir, 'results-merged'), { recursive: true })
    const texts = await Promise.all(
      results.filter((f) => f.endsWith('.json')).map((f) => readFile(join(dir, 'results-merged', f), 'utf8')),
    )
    const result = texts.map((t) => JSON.parse(t) as Record<string, unknown>).find((r) => 'segments' in r)
    expect(result?.completed).toBe(24)
    expect(result?.segments).toMatchObject({ count: 2 })
  })
})
