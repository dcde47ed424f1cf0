import { ConfigError, type ConfigIssue } from '../../errors.ts'
import type { FlagSpec } from '../flags.ts'
import type { ParsedFlags } from '../parse-args.ts'
import type { SweepItem } from './param-sweep.ts'
import { checkExperimentFolder, experimentFolder, sweepFlag, sweepFlagReader } from './sweep-flags.ts'

/**
 * The resolved options of `servebench sweep startup`. Python: SweepStartupArgs
 * (vllm/benchmarks/sweep/startup.py), with the iteration counts of `vllm bench startup`
 * (vllm/benchmarks/startup.py) as its own flags.
 */
export interface SweepStartupArgs {
  startupCommand: string[]
  serveParams: SweepItem[]
  startupParams: SweepItem[]
  /** `<--output-dir>/<--experiment-name>`. */
  experimentDir: string
  numRuns: number
  iters: StartupIterations
  serverReadyTimeoutS: number
  showStdout: boolean
  dryRun: boolean
  resume: boolean
}

/** Starts per run: cold ones (fresh caches), unmeasured warmups, then warm ones. */
export interface StartupIterations {
  cold: number
  warmup: number
  warm: number
}

/** The startup-params keys the sweep reads itself; every other key is a flag of the server command. */
export const ITERATION_KEYS = {
  num_iters_cold: 'cold',
  num_iters_warmup: 'warmup',
  num_iters_warm: 'warm',
} as const satisfies Record<string, keyof StartupIterations>

const f = sweepFlag

/** The flags of `vllm bench sweep startup`, then the iteration counts of `vllm bench startup`. */
export const SWEEP_STARTUP_FLAGS: readonly FlagSpec[] = [
  f(
    '--startup-cmd',
    'string',
    'The server command whose time from start to ready (GET /health answers 200) is measured: `servebench sim --port 8000`, `vllm serve MODEL`. Required.',
  ),
  f(
    '--serve-params',
    'string',
    'JSON file: parameter points applied to --startup-cmd (a list, or an object of named ones).',
  ),
  f(
    '--startup-params',
    'string',
    'JSON file: parameter points crossed with --serve-params; num_iters_cold, num_iters_warmup and num_iters_warm set the counts, other keys are flags of --startup-cmd.',
  ),
  f(
    '--strict-params',
    'boolean',
    'Refuse parameters that cannot apply. Every key applies to the server command here, so none is ignored.',
  ),
  f('--output-dir', 'string', 'Folder of the experiments.', { aliases: ['-o'], default: 'results' }),
  f('--experiment-name', 'string', 'Folder of this experiment under --output-dir.', {
    aliases: ['-e'],
    default: 'the start time, YYYYMMDD_HHMMSS',
  }),
  f('--num-runs', 'int', 'Runs per parameter point.', { default: '1' }),
  f('--show-stdout', 'boolean', 'Show the server command’s stdout.'),
  f('--dry-run', 'boolean', 'Print the commands and run none of them.'),
  f('--resume', 'boolean', 'Continue an experiment: run only the points without result files.'),
  f(
    '--num-iters-cold',
    'int',
    'Cold starts per run, each with empty VLLM_CACHE_ROOT and TORCHINDUCTOR_CACHE_DIR.',
    {
      default: '3',
    },
  ),
  f('--num-iters-warmup', 'int', 'Unmeasured starts before the warm ones, which fill the default caches.', {
    default: '1',
  }),
  f('--num-iters-warm', 'int', 'Warm starts per run (the caches as the warmups left them).', {
    default: '3',
  }),
  f('--server-ready-timeout', 'int', 'Seconds one start may take to answer GET /health with 200.', {
    default: '300',
    parity: 'servebench',
  }),
  f(
    '--config',
    'string',
    'Read flags from a YAML file (keys are long flag names); flags on the command line win.',
  ),
  f('--help', 'boolean', 'Show this help.', { aliases: ['-h'], parity: 'servebench' }),
]

/** Validates the flags; every issue at once. `now` names the experiment when `-e` is not given. */
export function resolveSweepStartupArgs(flags: ParsedFlags, now: Date = new Date()): SweepStartupArgs {
  const issues: ConfigIssue[] = []
  const { int, words, params } = sweepFlagReader(flags, issues)
  const startupCommand = words('--startup-cmd', 'the server command')
  const startupParams = params('--startup-params')
  for (const item of startupParams) {
    for (const key of Object.keys(ITERATION_KEYS)) {
      const value = item[key]
      if (value !== undefined && !(Number.isInteger(value) && (value as number) >= 0)) {
        issues.push({
          path: '--startup-params',
          message: `${key} must be an integer of at least 0 (got ${JSON.stringify(value)})`,
        })
      }
    }
  }
  const folder = experimentFolder(flags, now)
  const args: SweepStartupArgs = {
    startupCommand,
    serveParams: params('--serve-params'),
    startupParams,
    experimentDir: folder.experimentDir,
    numRuns: int('--num-runs', 1, 1),
    iters: {
      cold: int('--num-iters-cold', 3, 0),
      warmup: int('--num-iters-warmup', 1, 0),
      warm: int('--num-iters-warm', 3, 0),
    },
    serverReadyTimeoutS: int('--server-ready-timeout', 300, 1),
    showStdout: flags.has('--show-stdout'),
    dryRun: flags.has('--dry-run'),
    resume: folder.resume,
  }
  if (args.iters.cold + args.iters.warm === 0) {
    issues.push({
      path: '--num-iters-cold',
      message: 'and --num-iters-warm are both 0: nothing would be measured',
    })
  }
  checkExperimentFolder(folder, issues)
  if (issues.length > 0) throw new ConfigError(issues)
  return args
}
