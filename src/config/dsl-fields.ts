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
}

const f = (flag: string, form: FieldForm = 'scalar'): FieldSpec => ({ flag, form })

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

const numPrompts = f('--num-prompts')
const order = {
  disableShuffle: f('--disable-shuffle', 'switch'),
  noOversample: f('--no-oversample', 'switch'),
}
const randomLengths = {
  inputLen: f('--random-input-len'),
  outputLen: f('--random-output-len'),
  prefixLen: f('--random-prefix-len'),
  rangeRatio: f('--random-range-ratio', 'numberOrJson'),
}
const path = f('--dataset-path')

/**
 * The fields of each `datasets.<builder>()`, keyed by the spec's `kind`, with the `--dataset-name`
 * it stands for. `multi-turn` is `--multi-turn` over `random` or its `source`.
 */
export const DATASET_FIELDS: Readonly<
  Record<string, { datasetName: string; builder: string; fields: Readonly<Record<string, FieldSpec>> }>
> = {
  random: {
    datasetName: 'random',
    builder: 'random',
    fields: {
      ...randomLengths,
      numPrompts,
      batchSize: f('--random-batch-size'),
      promptTokenIds: f('--prompt-token-ids', 'switch'),
    },
  },
  'random-mm': {
    datasetName: 'random-mm',
    builder: 'randomMm',
    fields: {
      ...randomLengths,
      numPrompts,
      baseItemsPerRequest: f('--random-mm-base-items-per-request'),
      numMmItemsRangeRatio: f('--random-mm-num-mm-items-range-ratio'),
      limitMmPerPrompt: f('--random-mm-limit-mm-per-prompt', 'json'),
      buckets: f('--random-mm-bucket-config'),
      enableMultimodalChat: f('--enable-multimodal-chat', 'switch'),
    },
  },
  'random-rerank': {
    datasetName: 'random-rerank',
    builder: 'randomRerank',
    fields: {
      inputLen: f('--random-input-len'),
      numPrompts,
      rangeRatio: f('--random-range-ratio', 'numberOrJson'),
      batchSize: f('--random-batch-size'),
      noReranker: f('--no-reranker', 'switch'),
    },
  },
  custom: {
    datasetName: 'custom',
    builder: 'custom',
    fields: {
      path,
      numPrompts,
      outputLen: f('--custom-output-len'),
      skipChatTemplate: f('--skip-chat-template', 'switch'),
      ...order,
    },
  },
  custom_image: {
    datasetName: 'custom_image',
    builder: 'customImage',
    fields: {
      path,
      numPrompts,
      outputLen: f('--custom-output-len'),
      ensureClientSideData: f('--custom-ensure-client-side-data', 'switch'),
      enableMultimodalChat: f('--enable-multimodal-chat', 'switch'),
      ...order,
    },
  },
  custom_audio: {
    datasetName: 'custom_audio',
    builder: 'customAudio',
    fields: {
      path,
      numPrompts,
      outputLen: f('--custom-output-len'),
      skipChatTemplate: f('--skip-chat-template', 'switch'),
      enableMultimodalChat: f('--enable-multimodal-chat', 'switch'),
      ...order,
    },
  },
  sonnet: {
    datasetName: 'sonnet',
    builder: 'sonnet',
    fields: {
      path,
      numPrompts,
      inputLen: f('--sonnet-input-len'),
      outputLen: f('--sonnet-output-len'),
      prefixLen: f('--sonnet-prefix-len'),
    },
  },
  prefix_repetition: {
    datasetName: 'prefix_repetition',
    builder: 'prefixRepetition',
    fields: {
      numPrompts,
      prefixLen: f('--prefix-repetition-prefix-len'),
      suffixLen: f('--prefix-repetition-suffix-len'),
      numPrefixes: f('--prefix-repetition-num-prefixes'),
      outputLen: f('--prefix-repetition-output-len'),
      disableShuffle: order.disableShuffle,
    },
  },
  burstgpt: { datasetName: 'burstgpt', builder: 'burstgpt', fields: { path, numPrompts } },
  speed_bench: {
    datasetName: 'speed_bench',
    builder: 'speedBench',
    fields: {
      path,
      numPrompts,
      subset: f('--speed-bench-dataset-subset'),
      outputLen: f('--speed-bench-output-len'),
      category: f('--speed-bench-category'),
      ...order,
    },
  },
  spec_bench: {
    datasetName: 'spec_bench',
    builder: 'specBench',
    fields: {
      path,
      numPrompts,
      outputLen: f('--spec-bench-output-len'),
      category: f('--spec-bench-category'),
      ...order,
    },
  },
  timed_trace: {
    datasetName: 'timed_trace',
    builder: 'timedTrace',
    fields: {
      path,
      numPrompts,
      chunkHashSize: f('--timed-trace-chunk-hash-size'),
      secMultiplier: f('--timed-trace-sec-multiplier'),
      'labels.timestamp': f('--timed-trace-label-timestamp'),
      'labels.inputLength': f('--timed-trace-label-input-length'),
      'labels.outputLength': f('--timed-trace-label-output-length'),
      'labels.hashIds': f('--timed-trace-label-hash-ids'),
    },
  },
  sharegpt: {
    datasetName: 'sharegpt',
    builder: 'sharegpt',
    fields: { path, numPrompts, outputLen: f('--sharegpt-output-len'), ...order },
  },
  hf: {
    datasetName: 'hf',
    builder: 'hf',
    fields: {
      path,
      numPrompts,
      hfName: f('--hf-name'),
      subset: f('--hf-subset'),
      split: f('--hf-split'),
      outputLen: f('--hf-output-len'),
      textColumn: f('--hf-text-column'),
      skipChatTemplate: f('--skip-chat-template', 'switch'),
      asrMinAudioLenS: f('--asr-min-audio-len-sec'),
      asrMaxAudioLenS: f('--asr-max-audio-len-sec'),
      blazeditMinDistance: f('--blazedit-min-distance'),
      blazeditMaxDistance: f('--blazedit-max-distance'),
      bfclCategories: f('--bfcl-categories', 'csv'),
      ...order,
    },
  },
  'multi-turn': {
    datasetName: 'random',
    builder: 'multiTurn',
    fields: {
      inputLen: f('--random-input-len'),
      outputLen: f('--random-output-len'),
      numPrompts,
      perTurnInputLen: f('--per-turn-input-len'),
      numTurns: f('--multi-turn-num-turns'),
      minTurns: f('--multi-turn-min-turns'),
      maxTurns: f('--multi-turn-max-turns'),
      delayMs: f('--multi-turn-delay-ms'),
      concurrency: f('--multi-turn-concurrency'),
      prefixGlobalRatio: f('--multi-turn-prefix-global-ratio'),
      prefixConversationRatio: f('--multi-turn-prefix-conversation-ratio'),
      continueOnFailure: f('--multi-turn-continue-on-failure', 'switch'),
    },
  },
}

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
