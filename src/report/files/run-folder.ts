import { mkdir, readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { ensureDir } from './write-safe.ts'

/** A run folder's name: `run-20261201-181101`, with `-2`, `-3`… when a run started in the same second. */
const RUN_FOLDER = /^run-\d{8}-\d{6}(?:-\d+)?$/

/**
 * Creates the folder that keeps one run's files together, `<resultDir>/run-<date>-<time>`, named
 * after the run's start (UTC). Returns its name.
 */
export async function createRunFolder(resultDir: string, start: Date): Promise<string> {
  const p = (n: number): string => String(n).padStart(2, '0')
  const stamp = `${start.getUTCFullYear()}${p(start.getUTCMonth() + 1)}${p(start.getUTCDate())}-${p(start.getUTCHours())}${p(start.getUTCMinutes())}${p(start.getUTCSeconds())}`
  await ensureDir(resultDir)
  for (let n = 1; ; n++) {
    const name = n === 1 ? `run-${stamp}` : `run-${stamp}-${n}`
    try {
      await mkdir(join(resultDir, name))
      return name
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error
    }
  }
}

/**
 * Removes the oldest run folders so that `keep` remain (the current one always stays). Only
 * folders named like run folders are touched. Returns the names removed.
 */
export async function pruneRunFolders(resultDir: string, keep: number, current: string): Promise<string[]> {
  if (!Number.isFinite(keep)) return []
  const runs = (await readdir(resultDir, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && RUN_FOLDER.test(e.name) && e.name !== current)
    .map((e) => e.name)
    .sort(byStart)
  const excess = runs.slice(0, Math.max(0, runs.length - (keep - 1)))
  for (const name of excess) await rm(join(resultDir, name), { recursive: true, force: true })
  return excess
}

// `run-20261201-181101-10` after `run-20261201-181101-9`: by time, then by the same-second counter.
function byStart(a: string, b: string): number {
  const key = (name: string): [string, number] => {
    const m = /^(run-\d{8}-\d{6})(?:-(\d+))?$/.exec(name)
    return [m?.[1] ?? name, Number(m?.[2] ?? 1)]
  }
  const [ta, na] = key(a)
  const [tb, nb] = key(b)
  return ta < tb ? -1 : ta > tb ? 1 : na - nb
}
