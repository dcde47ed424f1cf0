import { basename } from 'node:path'
import { DETAILED_KEYS, SERVEBENCH_DETAILED_KEYS } from './result-types.ts'
import { SERVER_DETAILED_KEYS } from './server-keys.ts'

/**
 * The PyTorch OSS benchmark-database format Python writes beside a saved result when the
 * `SAVE_TO_PYTORCH_BENCHMARK_FORMAT` environment variable is set (`save_to_pytorch_benchmark_format`
 * in serve.py, `convert_to_pytorch_benchmark_format` in benchmarks/lib/utils.py): one record per
 * metric.
 */

/** The variable that turns the export on: any non-empty value, as Python's `os.environ.get(...)` test. */
export const PYTORCH_FORMAT_ENV = 'SAVE_TO_PYTORCH_BENCHMARK_FORMAT'

/** Python's metrics, in its order; those the result lacks (a pooling run has only E2EL) are left out. */
export const PYTORCH_METRICS = [
  'median_ttft_ms',
  'mean_ttft_ms',
  'std_ttft_ms',
  'p99_ttft_ms',
  'mean_tpot_ms',
  'median_tpot_ms',
  'std_tpot_ms',
  'p99_tpot_ms',
  'median_itl_ms',
  'mean_itl_ms',
  'std_itl_ms',
  'p99_itl_ms',
  'median_e2el_ms',
  'mean_e2el_ms',
  'std_e2el_ms',
  'p99_e2el_ms',
] as const

/** One record of the file: a benchmark, a model and one metric's values. */
export interface PytorchBenchmarkRecord {
  benchmark: { name: 'vLLM benchmark'; extra_info: { args: Record<string, unknown> } }
  model: { name: string | null }
  metric: { name: string; benchmark_values: unknown[]; extra_info: Record<string, unknown> }
}

/** Whether the environment asks for the export. */
export function pytorchFormatRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  return (env[PYTORCH_FORMAT_ENV] ?? '') !== ''
}

/**
 * The records of one result: each metric of {@link PYTORCH_METRICS} the result has, as
 * `[value]`; every other key but the per-request arrays goes to each record's `extra_info`.
 * `args` stands for Python's `vars(args)` (the run's arguments, `header` redacted) and `model`
 * for `args.model` (null when the model came from the server). When `extra_info` has a
 * `tensor_parallel_size` (a `--metadata` key) and `args` has none, it is copied into `args`.
 */
export function pytorchBenchmarkRecords(
  result: Readonly<Record<string, unknown>>,
  options: { args: Record<string, unknown>; model: string | null },
): PytorchBenchmarkRecord[] {
  const ignored = new Set<string>([...DETAILED_KEYS, ...SERVEBENCH_DETAILED_KEYS, ...SERVER_DETAILED_KEYS])
  const metrics = PYTORCH_METRICS.filter((name) => name in result)
  const metricNames = new Set<string>(metrics)
  const extraInfo: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(result)) {
    if (!metricNames.has(key) && !ignored.has(key)) extraInfo[key] = value
  }
  return metrics.map((name) => {
    const args = { ...options.args }
    if (!args.tensor_parallel_size && 'tensor_parallel_size' in extraInfo) {
      args.tensor_parallel_size = extraInfo.tensor_parallel_size
    }
    return {
      benchmark: { name: 'vLLM benchmark', extra_info: { args } },
      model: { name: options.model },
      metric: { name, benchmark_values: [result[name]], extra_info: extraInfo },
    }
  })
}

/** Python `f"{os.path.splitext(file_name)[0]}.pytorch.json"`: the result's name, its extension replaced. */
export function pytorchPath(resultFile: string): string {
  const name = basename(resultFile)
  const dot = name.lastIndexOf('.')
  // splitext ignores leading dots: `.json` has no extension.
  const stemEnd = dot > 0 && name.slice(0, dot).replace(/^\.+/, '') !== '' ? dot : name.length
  return `${resultFile.slice(0, resultFile.length - name.length)}${name.slice(0, stemEnd)}.pytorch.json`
}

/**
 * Python's `vars(args)` as far as servebench has it: each flag given, by its argparse name
 * (`--max-concurrency` → `max_concurrency`), with `header` values redacted as Python redacts them.
 */
export function pytorchArgs(flags: ReadonlyMap<string, string | string[] | true>): Record<string, unknown> {
  const args: Record<string, unknown> = {}
  for (const [flag, value] of flags) {
    const key = flag.replace(/^-+/, '').replaceAll('-', '_')
    args[key] = key === 'header' ? redactHeaders(value) : value
  }
  return args
}

function redactHeaders(value: string | string[] | true): string[] {
  const list = Array.isArray(value) ? value : [String(value)]
  return list.map((item) => `${item.split('=', 1)[0]}=[redacted]`)
}
