/**
 * Reading a local dataset file within bounds: only a regular file (a FIFO or a device would block
 * the run or never end), JSON Lines read line by line with each line capped, any other file read
 * whole up to a cap, and invalid UTF-8 named in a warning instead of replaced in silence. A file
 * over a limit is a `DatasetError` naming it and the variable that raises the limit (exit 2).
 */
import { type FileHandle, open, stat } from 'node:fs/promises'
import { DatasetError } from '../errors.ts'

/** The limits of the files a dataset reads, in bytes. */
export interface DatasetFileLimits {
  /** Longest JSON Lines line: one row (a prompt of ~4 million tokens at 4 bytes a token). */
  maxLineBytes: number
  /** Largest file read whole (CSV, text, a JSON array); JSON Lines files are read line by line. */
  maxFileBytes: number
}

/** Environment variables that set the limits. */
export const DATASET_FILE_LIMIT_ENV = {
  maxLineBytes: 'SERVEBENCH_MAX_DATASET_LINE_BYTES',
  maxFileBytes: 'SERVEBENCH_MAX_DATASET_FILE_BYTES',
} as const

/**
 * Far above any real row or file; below what V8 can hold as one string (512 Mi characters) and
 * what a tokenizer can count (a 200 MB prompt ended the process with a fatal "invalid size error").
 */
export const DEFAULT_DATASET_FILE_LIMITS: DatasetFileLimits = {
  maxLineBytes: 16 * 1024 * 1024,
  maxFileBytes: 512 * 1024 * 1024,
}

/** One parsed JSONL row and its 1-based line number in the file. */
export interface JsonlFileRow {
  line: number
  value: Record<string, unknown>
}

const READ_CHUNK_BYTES = 1024 * 1024
const LF = 0x0a

/**
 * The limits from the environment, else the defaults; a value that is not a positive integer is
 * returned as an issue naming the variable.
 */
export function datasetFileLimitsFrom(env: Readonly<Record<string, string | undefined>> = process.env): {
  limits: DatasetFileLimits
  issues: Array<{ path: string; message: string }>
} {
  const limits = { ...DEFAULT_DATASET_FILE_LIMITS }
  const issues = []
  for (const key of Object.keys(DATASET_FILE_LIMIT_ENV) as Array<keyof DatasetFileLimits>) {
    const name = DATASET_FILE_LIMIT_ENV[key]
    const raw = env[name]
    if (raw === undefined || raw === '') continue
    const value = Number(raw)
    if (!Number.isSafeInteger(value) || value < 1) {
      issues.push({ path: name, message: `must be a positive integer (got ${JSON.stringify(raw)})` })
    } else limits[key] = value
  }
  return { limits, issues }
}

/**
 * Refuses what is not a regular file before it is opened: a FIFO would block the run until a
 * writer came, a device may never end. Returns the file's size.
 */
export async function regularFileSize(
  dataset: string,
  path: string,
  flag = '--dataset-path',
): Promise<number> {
  let info: Awaited<ReturnType<typeof stat>>
  try {
    info = await stat(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'does not exist' : 'cannot be read'
    throw new DatasetError(`${dataset}: ${flag} ${path} ${why}`, { cause: error })
  }
  if (info.isFile()) return info.size
  if (info.isDirectory()) throw new DatasetError(`${dataset}: ${flag} ${path} is a directory`)
  const kind = info.isFIFO() ? 'a FIFO (named pipe)' : info.isSocket() ? 'a socket' : 'a device'
  throw new DatasetError(`${dataset}: ${flag} ${path} is ${kind}, not a regular file`)
}

/**
 * A whole dataset file as text, after {@link regularFileSize}, up to `maxFileBytes`. Invalid
 * UTF-8 is replaced (U+FFFD), as Python's `errors="replace"` would, with a warning naming the file.
 */
export async function readDatasetText(
  dataset: string,
  path: string,
  flag = '--dataset-path',
  warn: (line: string) => void = console.warn,
): Promise<string> {
  const size = await regularFileSize(dataset, path, flag)
  const { maxFileBytes } = datasetFileLimitsFrom().limits
  if (size > maxFileBytes) {
    throw new DatasetError(
      `${dataset}: ${flag} ${path} is ${size} bytes, over ${maxFileBytes}; raise ${DATASET_FILE_LIMIT_ENV.maxFileBytes} to read it`,
    )
  }
  let file: FileHandle | undefined
  try {
    file = await open(path, 'r')
    const bytes = await file.readFile()
    return decodeUtf8(bytes, () => warn(invalidUtf8Warning(dataset, path)))
  } catch (error) {
    throw new DatasetError(`${dataset}: ${flag} ${path} cannot be read`, { cause: error })
  } finally {
    await file?.close()
  }
}

/**
 * The rows of a JSON Lines file, read line by line so memory holds the rows, not the file: one
 * JSON object per non-blank line (blank lines count for line numbers), at most `limit` rows. A
 * line over `maxLineBytes` or one that is not a JSON object is a `DatasetError` naming the line.
 */
export async function readJsonlRows(
  dataset: string,
  path: string,
  options: { limit?: number; flag?: string; warn?: (line: string) => void } = {},
): Promise<JsonlFileRow[]> {
  const flag = options.flag ?? '--dataset-path'
  await regularFileSize(dataset, path, flag)
  const { maxLineBytes } = datasetFileLimitsFrom().limits
  const limit = options.limit ?? Number.POSITIVE_INFINITY
  const rows: JsonlFileRow[] = []
  const invalidLines: number[] = []
  let lineNumber = 0
  const onLine = (bytes: Buffer): void => {
    lineNumber++
    const text = decodeUtf8(bytes, () => invalidLines.push(lineNumber)).trim()
    if (text === '') return
    rows.push({ line: lineNumber, value: parseRow(dataset, path, lineNumber, text) })
  }
  let file: FileHandle | undefined
  try {
    file = await open(path, 'r')
  } catch (error) {
    throw new DatasetError(`${dataset}: ${flag} ${path} cannot be read`, { cause: error })
  }
  try {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES)
    let pending: Buffer[] = []
    let pendingBytes = 0
    while (rows.length < limit) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, null)
      if (bytesRead === 0) break
      let start = 0
      for (let end = buffer.indexOf(LF, 0); end !== -1 && end < bytesRead; end = buffer.indexOf(LF, start)) {
        const piece = buffer.subarray(start, end)
        checkLineBytes(dataset, path, lineNumber + 1, pendingBytes + piece.length, maxLineBytes)
        onLine(pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]))
        pending = []
        pendingBytes = 0
        start = end + 1
        if (rows.length >= limit) break
      }
      if (rows.length >= limit) break
      if (start < bytesRead) {
        pendingBytes += bytesRead - start
        checkLineBytes(dataset, path, lineNumber + 1, pendingBytes, maxLineBytes)
        pending.push(Buffer.from(buffer.subarray(start, bytesRead)))
      }
    }
    if (pendingBytes > 0 && rows.length < limit) onLine(Buffer.concat(pending))
  } finally {
    await file.close()
  }
  if (invalidLines.length > 0) {
    ;(options.warn ?? console.warn)(invalidUtf8Warning(dataset, path, invalidLines))
  }
  return rows
}

/** The warning of a file with invalid UTF-8 in it: the first lines that hold some. */
export function invalidUtf8Warning(dataset: string, path: string, lines: readonly number[] = []): string {
  const where =
    lines.length === 0
      ? ''
      : ` on ${lines.length === 1 ? 'line' : `${lines.length} lines, the first`} ${lines.slice(0, 5).join(', ')}`
  return `servebench: ${dataset}: ${path} holds invalid UTF-8${where}; each bad byte is read as U+FFFD`
}

function checkLineBytes(dataset: string, path: string, line: number, bytes: number, max: number): void {
  if (bytes <= max) return
  throw new DatasetError(
    `${dataset}: ${path}:${line}: the line is longer than ${max} bytes; raise ${DATASET_FILE_LIMIT_ENV.maxLineBytes} if rows this long are expected`,
  )
}

function parseRow(dataset: string, path: string, line: number, text: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new DatasetError(`${dataset}: ${path}:${line}: not valid JSON (${(error as Error).message})`, {
      cause: error,
    })
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new DatasetError(`${dataset}: ${path}:${line}: each line must be a JSON object`)
  return value as Record<string, unknown>
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const lossyUtf8 = new TextDecoder('utf-8')

/** `bytes` as UTF-8; invalid sequences become U+FFFD and call `onInvalid`. */
function decodeUtf8(bytes: Uint8Array, onInvalid: () => void): string {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    onInvalid()
    return lossyUtf8.decode(bytes)
  }
}
