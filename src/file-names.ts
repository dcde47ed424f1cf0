/**
 * The names a run's files get from text it does not control: `--label`, `--result-filename` and
 * the model id a server reports. A name is checked before the run (exit 2) when the user gave it,
 * and made safe when the server did, so a result is never written outside `--result-dir` or lost
 * after the run to a name the filesystem refuses.
 */
import { isAbsolute, join, relative, resolve } from 'node:path'
import type { ConfigIssue } from './errors.ts'

/** Most bytes of one file name on the filesystems servebench writes to (ext4, XFS, APFS, NTFS). */
export const MAX_FILE_NAME_BYTES = 255

/**
 * Most bytes of `--label` in a file name: the default name adds the rate, the concurrency, the
 * model and the date after it (`-inf qps-concurrency64-<model>-20260101-120000.json`).
 */
export const MAX_LABEL_BYTES = 160

/** Bytes left for the model part of a default result name. */
const MAX_MODEL_PART_BYTES = 64

/**
 * What is wrong with the names a user gave, as issues naming the flag: a `--label` that is not one
 * file-name part (a `/`, a NUL or control character, `.` or `..`, too long), a `--result-filename`
 * that climbs out of `--result-dir` (`../x.json`), holds a NUL, or whose last part is too long.
 */
export function checkResultNames(names: {
  resultDir?: string | undefined
  resultFilename?: string | undefined
  label?: string | undefined
}): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const { label, resultFilename, resultDir } = names
  if (label !== undefined) {
    const problem = namePartProblem(label, MAX_LABEL_BYTES)
    if (problem)
      issues.push({ path: '--label', message: `${problem}: it names the result file (got ${shown(label)})` })
  }
  if (resultFilename !== undefined) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
    if (/[\u0000-\u001f\u007f]/.test(resultFilename)) {
      issues.push({
        path: '--result-filename',
        message: `must not hold control characters (got ${shown(resultFilename)})`,
      })
    } else if (!isAbsolute(resultFilename) && escapes(resultDir ?? '.', resultFilename)) {
      issues.push({
        path: '--result-filename',
        message: `must name a file inside --result-dir (${resultDir ?? 'the current folder'}); ${shown(resultFilename)} climbs out of it`,
      })
    } else {
      const last = resultFilename.split('/').at(-1) ?? ''
      if (Buffer.byteLength(last) > MAX_FILE_NAME_BYTES) {
        issues.push({
          path: '--result-filename',
          message: `names a file of ${Buffer.byteLength(last)} bytes; a file name is at most ${MAX_FILE_NAME_BYTES}`,
        })
      }
    }
  }
  return issues
}

/**
 * Text from a server (a model id) as one part of a file name: path separators, NUL and control
 * characters become `_`, `.` and `..` become `_`, and it is cut to `maxBytes` of UTF-8.
 */
export function safeFileNamePart(text: string, maxBytes: number = MAX_MODEL_PART_BYTES): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces.
  let part = text.replace(/[/\\\u0000-\u001f\u007f]/g, '_')
  if (part === '.' || part === '..') part = '_'.repeat(part.length)
  if (Buffer.byteLength(part) <= maxBytes) return part
  let cut = part.slice(0, maxBytes)
  while (Buffer.byteLength(cut) > maxBytes) cut = cut.slice(0, -1)
  // A cut between the two halves of a surrogate pair leaves half a character: drop it.
  return cut.replace(/[\uD800-\uDBFF]$/, '')
}

/** Why `text` is not one safe part of a file name, or undefined. */
function namePartProblem(text: string, maxBytes: number): string | undefined {
  if (text.includes('/') || text.includes('\\')) return 'must not hold "/" or "\\"'
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (/[\u0000-\u001f\u007f]/.test(text)) return 'must not hold control characters'
  if (text === '.' || text === '..') return 'must not be "." or ".."'
  if (Buffer.byteLength(text) > maxBytes) return `must be at most ${maxBytes} bytes`
  return undefined
}

/** True when `dir` joined with `name` is not inside `dir`. */
function escapes(dir: string, name: string): boolean {
  const inside = relative(resolve(dir), resolve(join(dir, name)))
  return inside === '..' || inside.startsWith('../') || isAbsolute(inside)
}

/** A user's text in a message: quoted, control characters escaped, long text cut. */
function shown(text: string): string {
  const quoted = JSON.stringify(text)
  return quoted.length > 80 ? `${quoted.slice(0, 77)}…"` : quoted
}
