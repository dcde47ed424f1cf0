import { pythonStr } from './param-sweep.ts'

/**
 * `summary.csv` of a sweep as pandas writes `DataFrame.from_records(rows).to_csv(path)`: an
 * unnamed index column, the columns in order of first appearance, a missing value as an empty
 * cell, and a numeric column with a fraction or a gap written as floats (`4.0`). Lists and
 * objects are written as Python's `str()`. Python: run_combs (vllm/benchmarks/sweep/serve.py).
 */
export function summaryCsv(rows: ReadonlyArray<Record<string, unknown>>): string {
  const columns: string[] = []
  const seen = new Set<string>()
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key)
        columns.push(key)
      }
    }
  }
  const floatColumns = new Set(columns.filter((column) => isFloatColumn(rows.map((row) => row[column]))))
  const lines = [['', ...columns].map(csvCell).join(',')]
  rows.forEach((row, index) => {
    const cells = columns.map((column) => {
      const value = row[column]
      if (value === undefined || value === null) return ''
      if (typeof value === 'number' && floatColumns.has(column)) return pythonFloat(value)
      return csvCell(pythonStr(value))
    })
    lines.push([String(index), ...cells].join(','))
  })
  return `${lines.join('\n')}\n`
}

/** A column pandas stores as float64: numbers only, with a fraction or a missing value among them. */
function isFloatColumn(values: readonly unknown[]): boolean {
  const present = values.filter((v) => v !== undefined && v !== null)
  if (present.length === 0 || !present.every((v) => typeof v === 'number')) return false
  return present.length < values.length || present.some((v) => !Number.isInteger(v))
}

/** Python's `repr(float)`: `4.0`, `0.5`, `1e-07`, `inf`. */
function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return ''
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf'
  const text = String(value)
  if (/e/.test(text)) return text.replace(/e([+-])(\d)$/, 'e$10$2')
  return Number.isInteger(value) ? `${text}.0` : text
}

/** Python's csv QUOTE_MINIMAL. */
function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}
