import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError, type ConfigIssue } from '../../errors.ts'
import type { FlagSpec } from '../flags.ts'
import type { ParsedFlags } from '../parse-args.ts'
import { parseLinkVars, parseSweepItems, type SweepItem } from './param-sweep.ts'
import { splitShellWords } from './shell-words.ts'

/** The resolved options of `servebench sweep serve`. Python: SweepServeArgs (vllm/benchmarks/sweep/serve.py). */
export interface SweepServeArgs {
  serveCommand: string[]
  benchCommand: string[]
  afterBenchCommand: string[]
  showStdout: boolean
  serverReadyTimeoutS: number
  serveParams: SweepItem[]
  benchParams: SweepItem[]
  linkVars: Array<[string, string]>
  /** `<--output-dir>/<--experiment-name>`. */
  experimentDir: string
  numRuns: number
  warmupNumPrompts: number
  continueOnError: boolean
  dryRun: boolean
  resume: boolean
}

/** A flag of a `sweep` command: upstream's, supported, in the one group the sweep help shows. */
export const sweepFlag = (
  name: string,
  type: FlagSpec['type'],
  help: string,
  extra: Partial<FlagSpec> = {},
): FlagSpec => ({
  name,
  type,
  help,
  group: 'Client',
  status: 'supported',
  parity: 'python',
  ...extra,
})
const f = sweepFlag

/** The flags of `vllm bench sweep serve`, in upstream order. */
export const SWEEP_SERVE_FLAGS: readonly FlagSpec[] = [
  f(
    '--serve-cmd',
    'string',
    'The command that starts the server (`servebench sim --port 8000`, `vllm serve ...`). Required.',
  ),
  f(
    '--bench-cmd',
    'string',
    'The command that runs one benchmark (`servebench serve ...`, `vllm bench serve ...`). Required.',
  ),
  f(
    '--after-bench-cmd',
    'string',
    'Run after each benchmark instead of the cache reset of a vllm or servebench sim server.',
  ),
  f('--show-stdout', 'boolean', 'Show the stdout of the server and benchmark commands.'),
  f('--server-ready-timeout', 'int', 'Seconds to wait for GET /health to answer 200.', { default: '300' }),
  f(
    '--serve-params',
    'string',
    'JSON file: a list of parameter objects for --serve-cmd, or an object of named ones.',
  ),
  f(
    '--bench-params',
    'string',
    'JSON file: a list of parameter objects for --bench-cmd, or an object of named ones.',
  ),
  f(
    '--link-vars',
    'string',
    'SERVE_KEY=BENCH_KEY pairs (comma-separated) that must be equal for a point to run.',
  ),
  f('--output-dir', 'string', 'Folder of the experiments.', { aliases: ['-o'], default: 'results' }),
  f('--experiment-name', 'string', 'Folder of this experiment under --output-dir.', {
    aliases: ['-e'],
    default: 'the start time, YYYYMMDD_HHMMSS',
  }),
  f('--num-runs', 'int', 'Runs per parameter point.', { default: '3' }),
  f(
    '--warmup-num-prompts',
    'int',
    'Prompts of one unmeasured warmup run before each point (saved as warmup.json).',
    {
      default: '0',
    },
  ),
  f('--continue-on-error', 'boolean', 'Record a failed run or server in a .failure.json file and go on.'),
  f('--dry-run', 'boolean', 'Print the commands and run none of them.'),
  f('--resume', 'boolean', 'Continue an experiment: run only the points without result files.'),
  f(
    '--config',
    'string',
    'Read flags from a YAML file (keys are long flag names); flags on the command line win.',
  ),
  f('--help', 'boolean', 'Show this help.', { aliases: ['-h'], parity: 'servebench' }),
]

/** Validates the parsed flags; every issue at once. `now` names the experiment when `-e` is not given. */
export function resolveSweepServeArgs(flags: ParsedFlags, now: Date = new Date()): SweepServeArgs {
  const issues: ConfigIssue[] = []
  const { text, int, words, params } = sweepFlagReader(flags, issues)
  let linkVars: Array<[string, string]> = []
  try {
    linkVars = parseLinkVars(text('--link-vars') ?? '')
  } catch (error) {
    issues.push(...(error as ConfigError).issues)
  }
  const folder = experimentFolder(flags, now)
  const args: SweepServeArgs = {
    serveCommand: words('--serve-cmd', 'the command'),
    benchCommand: words('--bench-cmd', 'the command'),
    afterBenchCommand: words('--after-bench-cmd'),
    showStdout: flags.has('--show-stdout'),
    serverReadyTimeoutS: int('--server-ready-timeout', 300, 1),
    serveParams: params('--serve-params'),
    benchParams: params('--bench-params'),
    linkVars,
    experimentDir: folder.experimentDir,
    numRuns: int('--num-runs', 3, 1),
    warmupNumPrompts: int('--warmup-num-prompts', 0, 0),
    continueOnError: flags.has('--continue-on-error'),
    dryRun: flags.has('--dry-run'),
    resume: folder.resume,
  }
  checkExperimentFolder(folder, issues)
  if (issues.length > 0) throw new ConfigError(issues)
  return args
}

/** The readers of a sweep command's flags; each problem is pushed to `issues`. */
export function sweepFlagReader(flags: ParsedFlags, issues: ConfigIssue[]) {
  const text = (name: string): string | undefined => {
    const value = flags.get(name)
    return typeof value === 'string' ? value : undefined
  }
  const int = (name: string, fallback: number, min: number): number => {
    const raw = text(name)
    if (raw === undefined) return fallback
    const value = Number(raw)
    if (!Number.isInteger(value) || value < min) {
      issues.push({ path: name, message: `must be an integer of at least ${min} (got ${raw})` })
      return fallback
    }
    return value
  }
  // A command as one quoted string; `required` names what it is when it must be given.
  const words = (name: string, required?: string): string[] => {
    const raw = text(name)
    if (raw === undefined) {
      if (required) issues.push({ path: name, message: `is required (${required}, as one quoted string)` })
      return []
    }
    try {
      const split = splitShellWords(raw, name)
      if (split.length === 0) issues.push({ path: name, message: 'is empty' })
      return split
    } catch (error) {
      issues.push(...(error as ConfigError).issues)
      return []
    }
  }
  const params = (name: string): SweepItem[] => {
    const path = text(name)
    if (path === undefined) return [{}]
    try {
      return parseSweepItems(JSON.parse(readFileSync(path, 'utf8')), name)
    } catch (error) {
      if (error instanceof ConfigError) issues.push(...error.issues)
      else issues.push({ path: name, message: `cannot read ${path}: ${(error as Error).message}` })
      return [{}]
    }
  }
  return { text, int, words, params }
}

/** `<--output-dir>/<--experiment-name>` (the name `now` when none is given), and whether it is resumed. */
export function experimentFolder(flags: ParsedFlags, now: Date): { experimentDir: string; resume: boolean } {
  const { text } = sweepFlagReader(flags, [])
  const experimentDir = join(text('--output-dir') ?? 'results', text('--experiment-name') ?? timestamp(now))
  return { experimentDir, resume: flags.has('--resume') }
}

/** Python's resolve_experiment_dir: `--resume` needs the folder, and a new run refuses an existing one. */
export function checkExperimentFolder(
  { experimentDir, resume }: { experimentDir: string; resume: boolean },
  issues: ConfigIssue[],
): void {
  if (resume && !existsSync(experimentDir)) {
    issues.push({
      path: '--resume',
      message: `needs an existing experiment folder (${experimentDir} does not exist)`,
    })
  } else if (!resume && existsSync(experimentDir)) {
    issues.push({
      path: '--experiment-name',
      message: `names an existing folder (${experimentDir}); pass --resume to continue it, or another name`,
    })
  }
}

/** `YYYYMMDD_HHMMSS` in local time, as Python's `datetime.now().strftime("%Y%m%d_%H%M%S")`. */
export function timestamp(now: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0')
  return `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}_${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`
}
