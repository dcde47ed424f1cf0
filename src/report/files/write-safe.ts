/**
 * How the files layer puts files on disk safely: folders created one level at a time, a file
 * written under a temporary name then renamed, and the destination checked before a run.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { lstat, mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, resolve, sep } from 'node:path'
import type { OutputConfig } from '../../config/bench-config.ts'
import { ConfigError } from '../../errors.ts'

// Pseudo-filesystems where a result can never be written; Node's recursive mkdir loops forever
// under /proc, so these are refused by name before any filesystem call.
const PSEUDO_FS_ROOTS = ['/proc', '/sys', '/dev']

/**
 * Creates `dir` and its missing parents, one `mkdir` at a time (Node's `{ recursive: true }` never
 * returns under `/proc`).
 */
export async function ensureDir(dir: string): Promise<void> {
  const missing: string[] = []
  let current = resolve(dir)
  for (;;) {
    const info = await stat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    })
    if (info !== undefined) {
      if (!info.isDirectory()) {
        throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${current}'`), { code: 'ENOTDIR' })
      }
      break
    }
    missing.push(current)
    const parent = dirname(current)
    if (parent === current) break
    current = parent
  }
  for (const path of missing.reverse()) {
    await mkdir(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error
    })
  }
}

/**
 * Writes `data` to `path` through a temporary file in the same folder and a rename, so a crash or a
 * second Ctrl-C in the middle leaves the old file (or none), never a partial or 0-byte one.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = temporaryName(path)
  try {
    const file = await open(temp, 'wx')
    try {
      await file.writeFile(data, typeof data === 'string' ? 'utf8' : undefined)
    } finally {
      await file.close()
    }
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/**
 * {@link writeFileAtomic} for callers that cannot wait (a matcher storing a baseline): the folder
 * and its parents are created, the file written under a temporary name and renamed.
 */
export function writeFileAtomicSync(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true })
  const temp = temporaryName(path)
  try {
    writeFileSync(temp, data, { encoding: 'utf8', flag: 'wx' })
    renameSync(temp, path)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
}

function temporaryName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`)
}

/**
 * Checks, before any request is sent, that the result can be written: `--result-dir` is (or can be
 * made) a writable folder and `--result-filename` names a file. A problem is a `ConfigError` naming
 * the flag, so the CLI exits 2 with nothing sent. The folder is created, as writing would.
 */
export async function checkOutputDestination(
  output: Pick<OutputConfig, 'resultDir' | 'resultFilename'>,
): Promise<void> {
  const name = output.resultFilename
  if (name !== undefined) {
    const last = basename(name)
    if (name === '' || name.endsWith('/') || name.endsWith(sep) || last === '.' || last === '..') {
      throw issue('--result-filename', `must name a file (got ${JSON.stringify(name)})`)
    }
  }
  const file =
    name === undefined ? undefined : output.resultDir === undefined ? name : resolveIn(output.resultDir, name)
  const dir = file === undefined ? (output.resultDir ?? '.') : dirname(file)
  const flag =
    output.resultDir !== undefined && (name === undefined || !name.startsWith('/'))
      ? '--result-dir'
      : '--result-filename'
  const absolute = resolve(dir)
  if (PSEUDO_FS_ROOTS.some((root) => absolute === root || absolute.startsWith(`${root}/`))) {
    throw issue(
      flag,
      `cannot hold a result: ${absolute} is under ${absolute.split('/').slice(0, 2).join('/')}, a pseudo-filesystem`,
    )
  }
  try {
    await ensureDir(dir)
  } catch (error) {
    throw issue(flag, `cannot be created as a folder: ${describe(error, dir)}`, error)
  }
  if (file !== undefined) {
    const info = await lstat(file).catch(() => undefined)
    if (info?.isDirectory()) throw issue('--result-filename', `names a folder, not a file: ${file}`)
  }
  const probe = join(dir, `.servebench-write-check-${process.pid}-${randomBytes(4).toString('hex')}`)
  try {
    await (await open(probe, 'wx')).close()
  } catch (error) {
    throw issue(flag, `is not writable: ${describe(error, dir)}`, error)
  } finally {
    await rm(probe, { force: true })
  }
}

function resolveIn(dir: string, name: string): string {
  // Python os.path.join: an absolute file name ignores the directory.
  return name.startsWith('/') ? name : join(dir, name)
}

function issue(path: string, message: string, cause?: unknown): ConfigError {
  return new ConfigError([{ path, message }], cause === undefined ? undefined : { cause })
}

function describe(error: unknown, dir: string): string {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'ENOTDIR' || code === 'EEXIST') return `${dir} (or a folder above it) is a file`
  if (code === 'EACCES' || code === 'EPERM') return `permission denied in ${dir}`
  if (code === 'EROFS') return `${dir} is on a read-only filesystem`
  return `${dir}: ${(error as Error).message}`
}
