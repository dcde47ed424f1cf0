import { DatasetError } from '../../errors.ts'

/** One dataset row: a parquet row or a JSON object. */
export type Row = Record<string, unknown>

/** How prompts and completions are read from rows (Rust: `detect_columns`, datasets/hf_dataset.rs). */
export type ColumnLayout =
  | { kind: 'chat'; column: string }
  | { kind: 'text'; column: string; outputColumn?: string }
  | { kind: 'combined'; columns: [string, string]; outputColumn?: string }

const CHAT_COLUMNS = ['conversation', 'conversations', 'messages'] as const
const TEXT_COLUMNS = ['prompt', 'question', 'problem', 'input', 'text', 'content', 'instruction'] as const
const OUTPUT_COLUMNS = ['completion', 'response', 'answer', 'output', 'solution', 'answers'] as const
const USER_ROLES = new Set(['user', 'human'])
const ASSISTANT_ROLES = new Set(['assistant', 'gpt'])

/**
 * Detects the prompt and output columns on the first row, in Rust's order: the override
 * (`--hf-text-column`), a chat array (`conversation`, `conversations`, `messages`), `turns` of
 * strings, `context` + `input`, then the text columns. A missing column lists the ones there are.
 */
export function detectColumns(row: Row, textColumn?: string): ColumnLayout {
  const columns = Object.keys(row)
  const outputColumn = OUTPUT_COLUMNS.find((c) => c in row)
  const withOutput = (layout: ColumnLayout): ColumnLayout =>
    outputColumn && layout.kind !== 'chat' ? { ...layout, outputColumn } : layout
  if (textColumn !== undefined) {
    if (!(textColumn in row)) {
      throw new DatasetError(
        `hf: --hf-text-column "${textColumn}" is not a column; the columns are: ${columns.join(', ')}`,
      )
    }
    return isChatArray(row[textColumn])
      ? { kind: 'chat', column: textColumn }
      : withOutput({ kind: 'text', column: textColumn })
  }
  for (const column of CHAT_COLUMNS) if (isChatArray(row[column])) return { kind: 'chat', column }
  const turns = row.turns
  if (Array.isArray(turns) && typeof turns[0] === 'string')
    return withOutput({ kind: 'text', column: 'turns' })
  if ('context' in row && 'input' in row)
    return withOutput({ kind: 'combined', columns: ['context', 'input'] })
  const text = TEXT_COLUMNS.find((c) => c in row)
  if (text) return withOutput({ kind: 'text', column: text })
  throw new DatasetError(
    `hf: no prompt column found; the columns are: ${columns.join(', ')}. ` +
      `Expected one of ${[...CHAT_COLUMNS, 'turns', 'context+input', ...TEXT_COLUMNS].join(', ')}, ` +
      'or name it with --hf-text-column',
  )
}

/** The prompt and the reference completion of a row under a layout; the prompt may be empty. */
export function extractRow(row: Row, layout: ColumnLayout): { prompt: string; completion?: string } {
  if (layout.kind === 'chat') {
    const messages = Array.isArray(row[layout.column]) ? (row[layout.column] as unknown[]) : []
    const prompt = findMessage(messages, USER_ROLES) ?? ''
    const completion = findMessage(messages, ASSISTANT_ROLES)
    return completion === undefined ? { prompt } : { prompt, completion }
  }
  const prompt =
    layout.kind === 'combined'
      ? layout.columns.map((c) => asText(row[c]) ?? '').join('\n\n')
      : (asText(row[layout.column]) ?? '')
  const completion = layout.outputColumn ? asText(row[layout.outputColumn]) : undefined
  return completion === undefined ? { prompt } : { prompt, completion }
}

/** Every item has `role`+`content` or `from`+`value`, and there is at least one. */
function isChatArray(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((m) => {
      const item = m as Record<string, unknown> | null
      return (
        item !== null &&
        typeof item === 'object' &&
        (('role' in item && 'content' in item) || ('from' in item && 'value' in item))
      )
    })
  )
}

function findMessage(messages: unknown[], roles: Set<string>): string | undefined {
  for (const m of messages) {
    const item = m as Record<string, unknown>
    const role = String(item.role ?? item.from ?? '').toLowerCase()
    if (roles.has(role)) return asText(item.content ?? item.value)
  }
  return undefined
}

// A string; the first string of an array (`turns`, SQuAD-style `answers`); `answers.text[0]`.
function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(asText).find((v) => v !== undefined)
  if (value !== null && typeof value === 'object' && 'text' in value)
    return asText((value as { text: unknown }).text)
  return undefined
}

/** Rust `sanitize`: every character but alphanumerics and `- _ .` becomes `_`. */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9\-_.]/g, '_')
}

const SPLIT_KEYWORDS = ['train', 'test', 'validation', 'valid', 'dev'] as const

/** Rust `path_matches_split`: `{split}-*`, `{split}.*`, `{split}_*` file names, or a `{split}/` folder. */
export function pathMatchesSplit(path: string, split: string): boolean {
  const parts = path.split('/')
  const file = parts.at(-1) ?? ''
  if (parts.slice(0, -1).includes(split)) return true
  return [`${split}-`, `${split}.`, `${split}_`].some((p) => file.startsWith(p))
}

const NATIVE_EXTENSIONS = ['.parquet', '.json', '.jsonl', '.ndjson']

/**
 * Rust `select_native_files`: the repo's data files for a config and split when there is no
 * parquet export. Scoped to `{config}/` when a file lives there; files matching the split; when
 * no file names any split and the split is `train`, all of them.
 */
export function selectNativeFiles(files: readonly string[], config: string, split: string): string[] {
  let data = files.filter((f) => NATIVE_EXTENSIONS.some((e) => f.endsWith(e)))
  const scoped = data.filter((f) => f.startsWith(`${config}/`))
  if (scoped.length > 0) data = scoped
  const matching = data.filter((f) => pathMatchesSplit(f, split))
  if (matching.length > 0) return matching.sort()
  const labelled = data.some((f) => SPLIT_KEYWORDS.some((k) => pathMatchesSplit(f, k)))
  return !labelled && split === 'train' ? data.sort() : []
}

/**
 * Rust `read_json_rows`: a JSON array of objects, an object with exactly one array-of-objects
 * field, or JSON Lines (blank lines skipped). A bad line names the file and the line.
 */
export function readJsonRows(path: string, text: string, limit = Infinity): Row[] {
  const trimmed = text.trimStart()
  const lines = /\.(jsonl|ndjson)$/.test(path)
  if (!lines && (trimmed.startsWith('[') || (trimmed.startsWith('{') && !isJsonLines(trimmed)))) {
    let data: unknown
    try {
      data = JSON.parse(text)
    } catch (error) {
      throw new DatasetError(`hf: ${path}: not valid JSON (${(error as Error).message})`, { cause: error })
    }
    if (Array.isArray(data)) return data.slice(0, limit) as Row[]
    const arrays = Object.values(data as Row).filter(
      (v) => Array.isArray(v) && v.every((x) => x !== null && typeof x === 'object'),
    )
    if (arrays.length !== 1) {
      throw new DatasetError(
        `hf: ${path}: expected a JSON array of rows, an object with one array of rows, or JSON Lines`,
      )
    }
    return (arrays[0] as Row[]).slice(0, limit)
  }
  const rows: Row[] = []
  for (const [i, raw] of text.split('\n').entries()) {
    if (rows.length >= limit) break
    if (raw.trim() === '') continue
    try {
      rows.push(JSON.parse(raw) as Row)
    } catch (error) {
      throw new DatasetError(`hf: ${path}:${i + 1}: not valid JSON (${(error as Error).message})`, {
        cause: error,
      })
    }
  }
  return rows
}

// `{"a":1}\n{"b":2}`: more than one top-level value.
function isJsonLines(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim() !== '')
  if (lines.length < 2) return false
  try {
    JSON.parse(lines[0]!)
    return true
  } catch {
    return false
  }
}
