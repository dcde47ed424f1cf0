import { readFile } from 'node:fs/promises'
import { ConfigError, EXIT_CODES } from '../../errors.ts'
import { formatComparison, parseResultText } from '../../report/compare.ts'
import { renderCompareMarkdown } from '../../report/compare-markdown.ts'

const USAGE = `Usage: servebench compare <A.json> <B.json> [--markdown]

Prints a side-by-side diff of two saved results (compact or pretty JSON, or JSON Lines: the last
line is used). + marks an improvement from A to B, - a regression. Colour on a terminal; set
NO_COLOR to turn it off.

  --markdown   print the pull-request table instead: one row per metric with base (A), head (B),
               change, interval (when both files hold --save-detailed arrays) and verdict
`

/** `servebench compare A B` and `servebench serve --compare A B`. No server is contacted. */
export async function runCompareCommand(args: readonly string[]): Promise<number> {
  const markdown = args.includes('--markdown')
  const paths = args.filter((a) => a !== '--markdown')
  if (paths.length === 1 && (paths[0] === '--help' || paths[0] === '-h')) {
    process.stdout.write(USAGE)
    return EXIT_CODES.ok
  }
  if (paths.length !== 2) {
    throw new ConfigError([
      {
        path: 'compare',
        message: `needs two result files A B (got ${paths.length}); see servebench compare --help`,
      },
    ])
  }
  const [a, b] = await Promise.all(paths.map(readResult))
  process.stdout.write(
    markdown ? renderCompareMarkdown(a!, b!) : formatComparison(a!, b!, { color: useColor() }),
  )
  return EXIT_CODES.ok
}

async function readResult(path: string): Promise<{ path: string; result: Record<string, unknown> }> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as { code?: string }).code
    throw new ConfigError([{ path, message: `cannot be read (${code ?? (error as Error).message})` }], {
      cause: error,
    })
  }
  let result: Record<string, unknown>
  try {
    result = parseResultText(text)
  } catch (error) {
    throw new ConfigError([{ path, message: (error as Error).message }])
  }
  const missing = missingResultKeys(result)
  if (missing.length > 0) {
    throw new ConfigError([
      {
        path,
        message: `is not a benchmark result (as written by servebench serve or vllm bench serve): it has no numeric ${missing.map((k) => `"${k}"`).join(' or ')}`,
      },
    ])
  }
  return { path, result }
}

/** The keys every result has (a generation, pooling or multi-turn run), that `result` lacks. */
function missingResultKeys(result: Record<string, unknown>): string[] {
  const isNumber = (value: unknown): boolean =>
    typeof value === 'number' || value === 'inf' || value === 'nan' || value === '-inf'
  const missing: string[] = []
  if (!isNumber(result.duration)) missing.push('duration')
  if (!isNumber(result.completed) && !isNumber(result.conversations_completed)) missing.push('completed')
  return missing
}

/** Colour only on a terminal, and never when NO_COLOR is set to anything non-empty (no-color.org). */
function useColor(): boolean {
  const noColor = process.env.NO_COLOR
  return process.stdout.isTTY === true && (noColor === undefined || noColor === '')
}
