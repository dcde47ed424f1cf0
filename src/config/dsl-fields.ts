/**
 * Which `servebench serve` flag each DSL field is: the one table both doors share. A field of
 * `serveBench(name, options)` is named by its path (`load.maxConcurrency`), and the flag table
 * (`cli/flags.ts`) names the same value `--max-concurrency`.
 */

/** How a DSL value becomes the flag's text. */
export type FieldForm =
  /** a number or string, as the CLI would read it (`Infinity` → `inf`) */
  | 'scalar'
  /** `true` sets the flag; `false` leaves it out */
  | 'switch'
  /** `false` sets the flag (a `--no-…` flag); `true` leaves it out */
  | 'offSwitch'
  /** a list joined with commas */
  | 'csv'
  /** an object written as JSON */
  | 'json'
  /** a list of values, one per flag value */
  | 'list'
  /** an object of `KEY=VALUE` pairs */
  | 'pairs'
  /** an object of `KEY:VALUE` pairs (`--goodput`) */
  | 'colonPairs'
  /** a number, or an object written as JSON (`--random-range-ratio`) */
  | 'numberOrJson'

/** One DSL field: its flag and how its value is written. */
export interface FieldSpec {
  flag: string
  form: FieldForm
  /** Writes a value its form does not (a list of random-mm buckets as Python's dict text); undefined: the form writes it. */
  write?(value: unknown): string | undefined
}

/** A field spec: `flag`, written in `form` (or by `write`, when it gives a text). */
export const f = (flag: string, form: FieldForm = 'scalar', write?: FieldSpec['write']): FieldSpec =>
  write ? { flag, form, write } : { flag, form }

/** `endpoint({...})`. `apiKey` has no flag (the CLI reads `OPENAI_API_KEY`). */
export const ENDPOINT_FIELDS: Readonly<Record<string, FieldSpec>> = {
  backend: f('--backend'),
  model: f('--model'),
  servedModelName: f('--served-model-name'),
  baseUrl: f('--base-url'),
  endpointPath: f('--endpoint'),
  headers: f('--header', 'pairs'),
  tokenizer: f('--tokenizer'),
  tokenizerMode: f('--tokenizer-mode'),
  insecure: f('--insecure', 'switch'),
  httpTransport: f('--http-transport'),
  loraModules: f('--lora-modules', 'list'),
  loraAssignment: f('--lora-assignment'),
}

/** The top-level fields of `serveBench` options that are one flag each. */
export const TOP_FIELDS: Readonly<Record<string, FieldSpec>> = {
  goodput: f('--goodput', 'colonPairs'),
  percentiles: f('--metric-percentiles', 'csv'),
  percentileMetrics: f('--percentile-metrics', 'csv'),
  extraBody: f('--extra-body', 'json'),
  ignoreEos: f('--ignore-eos', 'switch'),
  reportCachedTokens: f('--report-cached-tokens', 'switch'),
  label: f('--label'),
  metadata: f('--metadata', 'pairs'),
  warmups: f('--num-warmups'),
  seed: f('--seed'),
  requestTimeoutS: f('--request-timeout'),
  readyCheckTimeoutS: f('--ready-check-timeout-sec'),
  readTimeoutS: f('--read-timeout'),
  maxRetries: f('--max-retries'),
  maxFailureRatio: f('--max-failure-ratio'),
  failOnErrorRatio: f('--fail-on-error-ratio'),
  clientThreads: f('--client-threads'),
  serverMetricsIntervalS: f('--server-metrics-interval'),
}

/** `sampling: {...}`: the request's sampling parameters, in the API's spelling. */
export const SAMPLING_FIELDS: Readonly<Record<string, FieldSpec>> = {
  temperature: f('--temperature'),
  top_p: f('--top-p'),
  top_k: f('--top-k'),
  min_p: f('--min-p'),
  frequency_penalty: f('--frequency-penalty'),
  presence_penalty: f('--presence-penalty'),
  repetition_penalty: f('--repetition-penalty'),
}

/** Keys of `serveBench` options that are not flags: read by the DSL door or the Vitest runtime. */
export const OTHER_TOP_KEYS = ['endpoint', 'dataset', 'load', 'sampling', 'timeoutMs', 'verdicts'] as const

/** The fields of each `load.<kind>()`. `constant` also sets `--burstiness inf`. */
export const LOAD_FIELDS: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  poisson: {
    rate: f('--request-rate'),
    burstiness: f('--burstiness'),
    maxConcurrency: f('--max-concurrency'),
  },
  constant: { rate: f('--request-rate'), maxConcurrency: f('--max-concurrency') },
  closed: { concurrency: f('--max-concurrency') },
  rampUp: {
    strategy: f('--ramp-up-strategy'),
    startRps: f('--ramp-up-start-rps'),
    endRps: f('--ramp-up-end-rps'),
    maxConcurrency: f('--max-concurrency'),
  },
  trace: { maxConcurrency: f('--max-concurrency') },
}

/** Required fields of each load kind (the types say so; plain JavaScript may leave them out). */
export const REQUIRED_LOAD_FIELDS: Readonly<Record<string, readonly string[]>> = {
  poisson: ['rate'],
  constant: ['rate'],
  closed: ['concurrency'],
  rampUp: ['startRps', 'endRps'],
  trace: [],
}

/**
 * Where a flag lives in the DSL when the suite did not set it (an issue about a missing or
 * implied value): `--dataset-path` → `dataset.path`.
 */
export const DEFAULT_DSL_PATHS: Readonly<Record<string, string>> = {
  '--backend': 'endpoint.backend',
  '--base-url': 'endpoint.baseUrl',
  '--model': 'endpoint.model',
  '--tokenizer': 'endpoint.tokenizer',
  '--dataset-name': 'dataset',
  '--dataset-path': 'dataset.path',
  '--multi-turn': 'dataset',
  '--request-rate': 'load.rate',
  '--burstiness': 'load.burstiness',
  '--max-concurrency': 'load.maxConcurrency',
  '--ramp-up-strategy': 'load.strategy',
  '--ramp-up-start-rps': 'load.startRps',
  '--ramp-up-end-rps': 'load.endRps',
  '--no-self-timed': 'dataset.selfTimed',
  '--self-timed': 'dataset.selfTimed',
  '--skip-tokenizer-init': 'endpoint.tokenizer',
}
