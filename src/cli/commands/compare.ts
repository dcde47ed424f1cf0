import { ConfigError, type ConfigIssue, EXIT_CODES } from '../../errors.ts'
import { formatComparison, parseResultText } from '../../report/compare/compare.ts'
import { renderCompareMarkdown } from '../../report/compare/compare-markdown.ts'
import {
  type FailOnOutcome,
  type FailOnThreshold,
  judgeFailOn,
  numericValue,
  parseFailOn,
  renderFailOn,
} from '../../report/compare/fail-on.ts'
import { RESULT_SCHEMA, validateResultFile } from '../../report/result/schema/index.ts'
import { validateModeFile } from '../../report/result/schema/modes.ts'
import { asksForHelp, type CommandArgs, scanCommandArgs } from '../parse-args.ts'
import { readInputText } from '../read-input.ts'

const USAGE = `Usage: servebench compare <A.json> <B.json> [--markdown] [--fail-on <metric>:<+|-><change>[%]]...

Prints a side-by-side diff of two saved results (compact or pretty JSON, or JSON Lines: the last
line is used). + marks an improvement from A to B, - a regression. Colour on a terminal; set
NO_COLOR to turn it off. Both files must be result files of the Python \`vllm bench serve\` schema
(as servebench serve, the Vitest reporter or vllm bench serve write them).

  --markdown                         print the pull-request table instead: one row per metric with
                                     base (A), head (B), change, interval (when both files hold
                                     --save-detailed arrays) and verdict
  --fail-on p99_ttft_ms:+10%         exit 1 when B's p99 TTFT is more than 10 % above A's
  --fail-on request_throughput:-5%   exit 1 when B's request throughput is more than 5 % below A's
  --fail-on mean_tpot_ms:+2          exit 1 when B's mean TPOT is more than 2 ms above A's

Exit codes: 0 every threshold held, 1 a threshold was crossed, 2 a bad file or flag.
`

const COMPARE_ARGS: CommandArgs = {
  command: 'servebench compare',
  flags: [
    { name: '--markdown', type: 'boolean', help: 'print the pull-request table' },
    { name: '--fail-on', type: 'string', repeatable: true, help: 'a threshold, such as p99_ttft_ms:+10%' },
  ],
  positionals: { what: 'result files A B', min: 2, max: 2 },
}

/** `servebench compare A B [--fail-on …]` and `servebench serve --compare A B`. No server is contacted. */
export async function runCompareCommand(args: readonly string[]): Promise<number> {
  if (asksForHelp(args)) {
    process.stdout.write(USAGE)
    return EXIT_CODES.ok
  }
  const { paths, thresholds, markdown } = parseCompareArgs(args)
  const [a, b] = await Promise.all(paths.map(readResult))
  const outcomes = judgeAll(thresholds, a!, b!)
  process.stdout.write(
    markdown ? renderCompareMarkdown(a!, b!) : formatComparison(a!, b!, { color: useColor() }),
  )
  if (outcomes.length === 0) return EXIT_CODES.ok
  process.stdout.write(renderFailOn(outcomes))
  const crossed = outcomes.filter((o) => o.crossed).length
  if (crossed === 0) return EXIT_CODES.ok
  console.error(
    `servebench: ${crossed} of ${outcomes.length} --fail-on threshold${outcomes.length === 1 ? '' : 's'} crossed`,
  )
  return EXIT_CODES.verdictFailed
}

function parseCompareArgs(args: readonly string[]): {
  paths: string[]
  thresholds: FailOnThreshold[]
  markdown: boolean
} {
  const issues: ConfigIssue[] = []
  const { flags, positionals } = scanCommandArgs(args, COMPARE_ARGS, issues)
  const thresholds: FailOnThreshold[] = []
  for (const value of (flags.get('--fail-on') as string[] | undefined) ?? []) {
    const parsed = parseFailOn(value)
    if ('error' in parsed) issues.push({ path: '--fail-on', message: parsed.error })
    else thresholds.push(parsed)
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return { paths: positionals, thresholds, markdown: flags.has('--markdown') }
}

type Input = { path: string; result: Record<string, unknown> }

function judgeAll(thresholds: readonly FailOnThreshold[], a: Input, b: Input): FailOnOutcome[] {
  const issues: ConfigIssue[] = []
  const outcomes: FailOnOutcome[] = []
  for (const t of thresholds) {
    const va = numericValue(a.result[t.metric])
    const vb = numericValue(b.result[t.metric])
    for (const [input, v] of [
      [a, va],
      [b, vb],
    ] as const) {
      if (v === undefined)
        issues.push({
          path: `--fail-on ${t.spec}`,
          message: `names "${t.metric}", which ${input.path} has no number for`,
        })
    }
    if (va !== undefined && vb !== undefined) outcomes.push(judgeFailOn(t, va, vb))
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return outcomes
}

async function readResult(path: string): Promise<Input> {
  const text = await readInputText(path)
  let result: Record<string, unknown>
  try {
    result = parseResultText(text)
  } catch (error) {
    throw new ConfigError([{ path, message: (error as Error).message }])
  }
  // A multi-turn result has its own schema; anything else must be a Python-schema result.
  const check = result.mode === 'multi_turn' ? validateModeFile(result) : validateResultFile(result)
  if (!check.valid) {
    throw new ConfigError([
      {
        path,
        message: `is not a benchmark result (the schema of servebench serve and vllm bench serve): ${schemaProblems(check.errors)}`,
      },
    ])
  }
  return { path, result }
}

/** Missing keys as one list (`it has no "date", "backend", … and 9 more`), then the other problems. */
function schemaProblems(errors: readonly string[]): string {
  const missing: string[] = []
  const other: string[] = []
  for (const e of errors) {
    const m = /^result must have required property '(.+)'$/.exec(e)
    if (m) missing.push(`"${m[1]}"`)
    else if (!/must match "(then|else)" schema$/.test(e)) other.push(e)
  }
  // The keys every result has first, in the schema's order; then those of its kind.
  const rank = (key: string): number => {
    const i = (RESULT_SCHEMA.required as readonly string[]).indexOf(key.slice(1, -1))
    return i === -1 ? Number.MAX_SAFE_INTEGER : i
  }
  missing.sort((x, y) => rank(x) - rank(y))
  const parts: string[] = []
  if (missing.length > 0)
    parts.push(
      `it has no ${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ` and ${missing.length - 4} more keys` : ''}`,
    )
  parts.push(...other.slice(0, 3))
  if (other.length > 3) parts.push(`and ${other.length - 3} more problems`)
  return parts.join('; ')
}

/** Colour only on a terminal, and never when NO_COLOR is set to anything non-empty (no-color.org). */
function useColor(): boolean {
  const noColor = process.env.NO_COLOR
  return process.stdout.isTTY === true && (noColor === undefined || noColor === '')
}
