import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { latestRunFolder, REPO, runVitest } from './vitest-helpers.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servebench-ergonomics-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('suite ergonomics', () => {
  it('reads dataset paths from the Vitest root, takes the plugin defaults, and runs {} in seconds', async () => {
    // Vitest runs from the repository root; the suite's data/ folder is under the project's root.
    expect(REPO).not.toContain('test/projects/ergonomics')
    const run = await runVitest('ergonomics', ['bench', '--run'], { SB_RESULT_DIR: join(dir, 'results') })
    expect(run.output).not.toContain('does not exist')
    expect(run.code, run.output).toBe(0)
    expect(
      (await readdir(await latestRunFolder(join(dir, 'results')))).filter((f) => f.endsWith('.json')).length,
    ).toBeGreaterThanOrEqual(3)
  })
})
