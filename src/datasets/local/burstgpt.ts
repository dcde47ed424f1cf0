import { type DatasetFlagContext, needsTokenizer, requirePath } from '../../config/dataset-flag-checks.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { type DatasetContext, type DslFieldTable, defineDataset } from '../dataset-module.ts'
import { decodeToTargetLen } from '../decode-to-target.ts'
import { readDatasetFile } from '../sampling.ts'
import { type CommonOptions, NUM_PROMPTS_FIELD, PATH_FIELD } from '../shared-flags.ts'

/** `--dataset-name burstgpt`: lengths from a BurstGPT CSV (GPT-4 rows). */
export interface BurstGptDatasetConfig {
  kind: 'burstgpt'
  path: string
}

/** Options of `datasets.burstgpt` (`--dataset-name burstgpt`). */
export interface BurstGptDatasetOptions extends CommonOptions {
  /** The BurstGPT `.csv` (columns `Model`, `Request tokens`, `Response tokens`). */
  path: string
}

/** `--dataset-name burstgpt`: the request and response lengths of a BurstGPT CSV. */
export const burstGptDataset = defineDataset<BurstGptDatasetConfig, BurstGptDatasetOptions>({
  kind: 'burstgpt',
  summary: 'request and response lengths of a BurstGPT CSV',
  datasetName: 'burstgpt',
  builder: 'burstgpt',
  fields: { path: PATH_FIELD, numPrompts: NUM_PROMPTS_FIELD } satisfies DslFieldTable<BurstGptDatasetOptions>,
  flags: [],
  resolve: (read: Reader, context: DatasetFlagContext): BurstGptDatasetConfig => {
    needsTokenizer('burstgpt', context)
    return { kind: 'burstgpt', path: requirePath(read, 'burstgpt', 'the BurstGPT .csv file', context.issues) }
  },
  generate: generateBurstGpt,
})

const NAME = 'burstgpt'
/** The BurstGPT columns servebench reads (Python reads columns 2 and 3 by position: the same ones). */
export const BURSTGPT_COLUMNS = {
  model: 'Model',
  requestTokens: 'Request tokens',
  responseTokens: 'Response tokens',
} as const

/** One usable row: a GPT-4 request with its token counts. */
export interface BurstGptRow {
  line: number
  inputLen: number
  outputLen: number
}

/**
 * The `burstgpt` dataset (Python: `BurstGPTDataset`). Rows with `Model == "GPT-4"` and more than 0
 * response tokens are kept; `numPrompts` of them are drawn with the seed (without replacement when
 * there are enough, else with). Request i's prompt is built from the ids
 * `allowed[(i + j) % |allowed|]`, j < input length, decoded and fitted so `promptLen` is exact
 * (Python decodes `(i + j) % vocab` and reports the column value); the output length is the
 * response-token column.
 */
export async function generateBurstGpt(
  config: BurstGptDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { tokenizer, numPrompts, seed } = context
  const rows = parseBurstGptCsv(config.path, await readDatasetFile(NAME, config.path))
  if (rows.length === 0)
    throw new DatasetError(`${NAME}: ${config.path} has no GPT-4 rows with response tokens > 0`)
  const rng = createRng(seed)
  const picked =
    numPrompts <= rows.length
      ? rng.shuffle(rows.slice()).slice(0, numPrompts)
      : Array.from({ length: numPrompts }, () => rows[rng.int(0, rows.length - 1)]!)
  const allowed = tokenizer.allowedTokenIds()
  const requests: SampleRequest[] = []
  for (const [i, row] of picked.entries()) {
    const ids = Array.from({ length: row.inputLen }, (_, j) => allowed[(i + j) % allowed.length]!)
    const fitted = await decodeToTargetLen(tokenizer, ids, row.inputLen, allowed)
    requests.push({ prompt: fitted.prompt, promptLen: fitted.ids.length, expectedOutputLen: row.outputLen })
  }
  return requests
}

/** Parses a BurstGPT CSV and keeps the usable rows. Bad cells name the file, the line and the column. */
export function parseBurstGptCsv(path: string, text: string): BurstGptRow[] {
  const lines = text.split(/\r?\n/)
  const header = splitCsvLine(lines[0] ?? '')
  const index = (name: string): number => {
    const at = header.indexOf(name)
    if (at === -1) {
      throw new DatasetError(
        `${NAME}: ${path}:1: column "${name}" is missing; the columns are ${header.map((h) => `"${h}"`).join(', ')}`,
      )
    }
    return at
  }
  const modelAt = index(BURSTGPT_COLUMNS.model)
  const inAt = index(BURSTGPT_COLUMNS.requestTokens)
  const outAt = index(BURSTGPT_COLUMNS.responseTokens)
  const rows: BurstGptRow[] = []
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue
    const cells = splitCsvLine(lines[i]!)
    if (cells[modelAt] !== 'GPT-4') continue
    const count = (at: number, column: string): number => {
      const raw = cells[at] ?? ''
      const value = Number(raw)
      if (raw.trim() === '' || !Number.isInteger(value) || value < 0) {
        throw new DatasetError(
          `${NAME}: ${path}:${i + 1}: column "${column}" must be a non-negative integer (got "${raw}")`,
        )
      }
      return value
    }
    const inputLen = count(inAt, BURSTGPT_COLUMNS.requestTokens)
    const outputLen = count(outAt, BURSTGPT_COLUMNS.responseTokens)
    if (outputLen > 0) rows.push({ line: i + 1, inputLen, outputLen })
  }
  return rows
}

/** One CSV record on one line: commas, double-quoted cells with `""` escapes. */
function splitCsvLine(line: string): string[] {
  const cells: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"'
        i++
      } else if (ch === '"') quoted = false
      else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') {
      cells.push(cell)
      cell = ''
    } else cell += ch
  }
  cells.push(cell)
  return cells.map((c) => c.trim())
}
