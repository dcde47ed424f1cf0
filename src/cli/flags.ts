import { BACKEND_NAMES, HTTP_TRANSPORTS } from '../config/bench-config.ts'
import { DATASET_FLAG_ROWS, DATASET_NAMES } from '../datasets/registry.ts'

/**
 * The flag table of `servebench serve`: one row per long flag, in Python spelling. The parser,
 * `--help`, `docs/cli.md` and the parity test all read this table.
 */

export type FlagType = 'string' | 'number' | 'int' | 'boolean' | 'rate' | 'list'

export type FlagGroup =
  | 'Endpoint'
  | 'Model and tokenizer'
  | 'Dataset'
  | 'Traffic'
  | 'Request content'
  | 'Metrics'
  | 'Output'
  | 'Client'
  | 'Capacity'

/**
 * - `supported`: implemented.
 * - `accepted`: parsed for compatibility; it changes nothing (the help text says why).
 * - `planned`: a known upstream flag servebench does not implement yet; using it is a usage error.
 */
export type FlagStatus = 'supported' | 'accepted' | 'planned'

export interface FlagSpec {
  name: string
  aliases?: string[]
  type: FlagType
  group: FlagGroup
  help: string
  /** Shown in --help; undefined = no default. */
  default?: string
  choices?: readonly string[]
  status: FlagStatus
  /** Where the flag comes from: both upstream clients, Python only, Rust only, or servebench. */
  parity: 'both' | 'python' | 'rust' | 'servebench'
}

const s = (
  name: string,
  type: FlagType,
  group: FlagGroup,
  help: string,
  extra: Partial<FlagSpec> = {},
): FlagSpec => ({ name, type, group, help, status: 'supported', parity: 'both', ...extra })

export const SERVE_FLAGS: readonly FlagSpec[] = [
  // Endpoint
  s('--backend', 'string', 'Endpoint', 'Backend API to benchmark.', {
    default: 'openai',
    choices: BACKEND_NAMES,
  }),
  s('--base-url', 'string', 'Endpoint', 'Server base URL; overrides --host and --port.'),
  s('--host', 'string', 'Endpoint', 'Server host, used when --base-url is not given.', {
    default: '127.0.0.1',
  }),
  s('--port', 'int', 'Endpoint', 'Server port, used when --base-url is not given.', { default: '8000' }),
  s('--endpoint', 'string', 'Endpoint', 'API path appended to the base URL.', {
    default:
      'per backend: /v1/completions, /v1/chat/completions, /v1/responses, /v1/embeddings, /embeddings (infinity), /pooling, /v1/rerank, /v1/audio/transcriptions',
  }),
  s(
    '--header',
    'list',
    'Endpoint',
    'Extra HTTP headers as KEY=VALUE (one or more). Never written to results.',
  ),
  s('--insecure', 'boolean', 'Endpoint', 'Accept invalid TLS certificates.'),
  s(
    '--http-transport',
    'string',
    'Endpoint',
    "What carries the streamed requests: lean (servebench's own HTTP/1.1 client on node:net/node:tls), undici, or auto (lean unless HTTP_PROXY or HTTPS_PROXY is set). Other requests always use undici.",
    { default: 'auto', choices: HTTP_TRANSPORTS, parity: 'servebench' },
  ),
  s(
    '--ready-check-timeout-sec',
    'int',
    'Endpoint',
    'Retry the first request every 5 s until it succeeds; 0 skips.',
    {
      default: '0',
    },
  ),
  // Model and tokenizer
  s('--model', 'string', 'Model and tokenizer', 'Model id; fetched from /v1/models when omitted.'),
  s(
    '--served-model-name',
    'string',
    'Model and tokenizer',
    'Value of the request `model` field (else the model id).',
  ),
  s(
    '--tokenizer',
    'string',
    'Model and tokenizer',
    'tokenizer.json path or folder, HF id (cache, else downloaded from the hub), or a tiktoken encoding; else the model id.',
  ),
  s('--tokenizer-mode', 'string', 'Model and tokenizer', 'Accepted for compatibility; only "auto" is used.', {
    default: 'auto',
    status: 'accepted',
  }),
  s(
    '--trust-remote-code',
    'boolean',
    'Model and tokenizer',
    'Accepted for compatibility; tokenizers run no code.',
    {
      status: 'accepted',
    },
  ),
  s(
    '--skip-tokenizer-init',
    'boolean',
    'Model and tokenizer',
    'Use no tokenizer: custom and custom_image only (each prompt counts 1 token); the result has no TTFT/TPOT/ITL.',
  ),
  s(
    '--lora-modules',
    'list',
    'Model and tokenizer',
    "LoRA adapter names sent as each request's model field (multi-turn: one per conversation); not for pooling backends.",
  ),
  s(
    '--lora-assignment',
    'string',
    'Model and tokenizer',
    'How adapters are assigned: random (seeded by --seed) or round-robin.',
    {
      default: 'random',
      choices: ['random', 'round-robin'],
    },
  ),
  // Dataset
  s('--dataset-name', 'string', 'Dataset', 'Dataset to sample requests from.', {
    default: 'random',
    choices: DATASET_NAMES,
  }),
  s('--dataset-path', 'string', 'Dataset', 'Path or id of the dataset (not used by random).'),
  s('--num-prompts', 'int', 'Dataset', 'Number of requests to send.', { default: '1000' }),
  s('--seed', 'int', 'Dataset', 'Seed for the dataset and the arrival schedule.', { default: '0' }),
  s('--input-len', 'int', 'Dataset', 'Alias of --random-input-len.'),
  s('--output-len', 'int', 'Dataset', 'Alias of --random-output-len.'),
  // Each dataset's own flags, from its module (datasets/registry.ts).
  ...DATASET_FLAG_ROWS.map((row) => s(row.name, row.type, 'Dataset', row.help, row)),
  s(
    '--max-model-len',
    'int',
    'Dataset',
    'Drop requests (multi-turn: turns) whose prompt plus expected output exceed this many tokens.',
    { parity: 'rust' },
  ),
  s(
    '--chat-template-kwargs',
    'string',
    'Dataset',
    'JSON object of chat-template variables for client-side templating, e.g. \'{"enable_thinking": false}\'.',
    { parity: 'python' },
  ),
  // Traffic
  s('--request-rate', 'rate', 'Traffic', 'Requests per second, or inf to send all at once.', {
    default: 'inf',
  }),
  s(
    '--burstiness',
    'rate',
    'Traffic',
    'Gamma shape of the arrival gaps: 1 is Poisson, < 1 burstier, inf constant.',
    {
      default: '1.0',
    },
  ),
  s(
    '--max-concurrency',
    'int',
    'Traffic',
    'Maximum requests in flight; later arrivals queue on the client (FIFO).',
  ),
  s(
    '--ramp-up-strategy',
    'string',
    'Traffic',
    'Ramp the rate from --ramp-up-start-rps to --ramp-up-end-rps.',
    {
      choices: ['linear', 'exponential'],
    },
  ),
  s('--ramp-up-start-rps', 'number', 'Traffic', 'Ramp-up start rate (> 0).'),
  s('--ramp-up-end-rps', 'number', 'Traffic', 'Ramp-up end rate (>= start).'),
  s(
    '--num-warmups',
    'int',
    'Traffic',
    'Warm-up requests (the first prompt, repeated) not counted in results.',
    {
      default: '0',
    },
  ),
  s(
    '--probe-request-rate',
    'number',
    'Traffic',
    'Sequential "Hi" probes (1 output token) per second beside the run, outside --max-concurrency; 0 is off.',
    { default: '0', parity: 'python' },
  ),
  s(
    '--sweep-max-concurrency',
    'string',
    'Traffic',
    'Comma-separated concurrencies: one run per value, then a summary.',
    {
      parity: 'rust',
    },
  ),
  s(
    '--sweep-request-rate',
    'string',
    'Traffic',
    'Comma-separated rates (or inf): one run per value, then a summary.',
    {
      parity: 'rust',
    },
  ),
  s(
    '--sweep-num-prompts-factor',
    'int',
    'Traffic',
    'Concurrency sweeps: --num-prompts = concurrency × factor.',
    {
      parity: 'rust',
    },
  ),
  s(
    '--reset-prefix-cache',
    'boolean',
    'Traffic',
    'POST /reset_prefix_cache before each run (each sweep point); a non-2xx answer stops the benchmark.',
    { parity: 'rust' },
  ),
  s(
    '--sweep-summary-percentiles',
    'string',
    'Traffic',
    'Comma-separated percentiles shown as sweep-summary columns (also computed for every run).',
    { parity: 'rust' },
  ),
  s('--num-runs', 'int', 'Traffic', 'Repeat the run and report mean, std, min, max and CV per metric.', {
    default: '1',
    parity: 'rust',
  }),
  s(
    '--multi-turn',
    'boolean',
    'Traffic',
    'Conversations with history (openai-chat; random, sharegpt or hf).',
    {
      parity: 'rust',
    },
  ),
  s('--multi-turn-num-turns', 'int', 'Traffic', 'Turns per conversation.', { default: '3', parity: 'rust' }),
  s(
    '--multi-turn-min-turns',
    'int',
    'Traffic',
    'Fewest turns per conversation; 0 = --multi-turn-num-turns.',
    {
      default: '0',
      parity: 'rust',
    },
  ),
  s(
    '--multi-turn-max-turns',
    'int',
    'Traffic',
    'Most turns per conversation; 0 = --multi-turn-num-turns (sharegpt/hf: a cap, 0 = none).',
    {
      default: '0',
      parity: 'rust',
    },
  ),
  s(
    '--multi-turn-concurrency',
    'int',
    'Traffic',
    'Most turns in flight across conversations (default: --max-concurrency, else --num-prompts).',
    { parity: 'rust' },
  ),
  s('--multi-turn-delay-ms', 'int', 'Traffic', 'Think time between turns (holds no concurrency slot).', {
    default: '0',
    parity: 'rust',
  }),
  s(
    '--multi-turn-prefix-global-ratio',
    'number',
    'Traffic',
    'Share of each message common to all conversations; > 0 sends each turn without history.',
    { default: '0.0', parity: 'rust' },
  ),
  s(
    '--multi-turn-prefix-conversation-ratio',
    'number',
    'Traffic',
    'Share of each message common within a conversation; > 0 sends each turn without history.',
    { default: '0.0', parity: 'rust' },
  ),
  s(
    '--multi-turn-continue-on-failure',
    'boolean',
    'Traffic',
    'Keep sending a conversation after a failed turn (Rust stops it).',
    { parity: 'servebench' },
  ),
  s(
    '--per-turn-input-len',
    'int',
    'Traffic',
    'Multi-turn: prompt tokens of turns after the first; 0 = the same.',
    {
      default: '0',
      parity: 'rust',
    },
  ),
  // Request content
  s(
    '--ignore-eos',
    'boolean',
    'Request content',
    'Send ignore_eos: true (forced on for random, random-mm and timed_trace, as Python does).',
  ),
  s('--logprobs', 'int', 'Request content', 'Completions: logprobs per token.'),
  s(
    '--extra-body',
    'string',
    'Request content',
    'JSON object merged into every request body (wins over sampling flags).',
  ),
  s(
    '--request-id-prefix',
    'string',
    'Request content',
    'Request ids are <prefix><index>, sent as x-request-id.',
    {
      default: 'bench-<8 hex>-',
    },
  ),
  s('--temperature', 'number', 'Request content', 'Sampling temperature.'),
  s('--top-p', 'number', 'Request content', 'Sampling top_p.'),
  s('--top-k', 'int', 'Request content', 'Sampling top_k.'),
  s('--min-p', 'number', 'Request content', 'Sampling min_p.'),
  s('--frequency-penalty', 'number', 'Request content', 'Sampling frequency_penalty.'),
  s('--presence-penalty', 'number', 'Request content', 'Sampling presence_penalty.'),
  s('--repetition-penalty', 'number', 'Request content', 'Sampling repetition_penalty.'),
  s('--use-beam-search', 'boolean', 'Request content', 'Accepted for compatibility; unused upstream too.', {
    status: 'accepted',
    parity: 'python',
  }),
  // Metrics
  s(
    '--percentile-metrics',
    'string',
    'Metrics',
    'Comma-separated metrics to report: ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue.',
    { default: 'ttft,tpot,itl' },
  ),
  s('--metric-percentiles', 'string', 'Metrics', 'Comma-separated percentiles in [0, 100].', {
    default: '99',
  }),
  s('--goodput', 'list', 'Metrics', 'SLOs as KEY:VALUE in ms, keys ttft, tpot, e2el.'),
  s('--profile', 'boolean', 'Metrics', 'POST /start_profile before the run and /stop_profile after it.'),
  s(
    '--profile-batch-threshold',
    'int',
    'Metrics',
    'With --profile: start profiling once /metrics shows this many requests running.',
    { parity: 'rust' },
  ),
  s(
    '--profile-duration',
    'number',
    'Metrics',
    'Seconds profiled after --profile-batch-threshold is reached (or until the run ends).',
    { default: '5.0', parity: 'rust' },
  ),
  s(
    '--steady-state-threshold',
    'number',
    'Metrics',
    'Steady-state window opens at this fraction of --max-concurrency, in (0, 1].',
    { default: '0.95', parity: 'rust' },
  ),
  s(
    '--steady-state-min-window',
    'number',
    'Metrics',
    'Warn when the steady-state window is shorter (seconds).',
    {
      default: 'max(10, 0.1 × duration)',
      parity: 'rust',
    },
  ),
  s('--no-steady-state', 'boolean', 'Metrics', 'Do not compute the steady-state window.', { parity: 'rust' }),
  s(
    '--server-metrics-interval',
    'number',
    'Metrics',
    "Scrape the server's Prometheus /metrics every N seconds during the timed run (running and waiting requests, KV-cache usage, prefix-cache hits, preemptions, …) and keep the series in the result under server_metrics.",
    { parity: 'servebench' },
  ),
  s(
    '--plot-timeline',
    'boolean',
    'Metrics',
    'Write <result name>.timeline.html next to the result: one bar per request (queue wait, TTFT, decode), slow ITL gaps highlighted. Single runs only.',
    { parity: 'python' },
  ),
  s(
    '--timeline-itl-thresholds',
    'string',
    'Metrics',
    'Two comma-separated ITL thresholds in ms that colour the timeline: below, between, at or above.',
    { default: '25,50', parity: 'python' },
  ),
  s(
    '--plot-dataset-stats',
    'boolean',
    'Metrics',
    'Write <result name>.dataset_stats.png next to the result: histograms of prompt, output and total tokens, and the tokens of each request. Single generation runs only.',
    { parity: 'python' },
  ),
  // Output
  s('--save-result', 'boolean', 'Output', 'Write the result JSON.'),
  s('--save-detailed', 'boolean', 'Output', 'Include per-request arrays in the result JSON.'),
  s('--append-result', 'boolean', 'Output', 'Append the result as one JSON line (implies saving).'),
  s(
    '--report-cached-tokens',
    'boolean',
    'Output',
    'Sum usage.prompt_tokens_details.cached_tokens into total_cached_tokens (vLLM needs --enable-prompt-tokens-details).',
    { parity: 'python' },
  ),
  s('--result-dir', 'string', 'Output', 'Directory for result files (created).'),
  s('--result-filename', 'string', 'Output', 'Result file name (default: Python naming convention).'),
  s('--label', 'string', 'Output', 'Label for the result file name and the `label` key.'),
  s('--metadata', 'list', 'Output', 'KEY=VALUE pairs written as top-level keys of the result.'),
  s('--disable-tqdm', 'boolean', 'Output', 'No progress bar.'),
  s(
    '--dry-run',
    'boolean',
    'Output',
    'Print the resolved configuration as JSON and send nothing (the same JSON as resolveServeBench() for a suite).',
    { parity: 'rust' },
  ),
  s('--compare', 'list', 'Output', 'Compare two saved results A B (JSON or JSONL) instead of running.', {
    parity: 'rust',
  }),
  // Client
  s('--request-timeout', 'number', 'Client', 'Per-request timeout in seconds (default: none).', {
    parity: 'servebench',
  }),
  s(
    '--read-timeout',
    'number',
    'Client',
    'Fail a stream silent for this many seconds (Python VLLM_BENCH_SOCK_READ).',
    {
      parity: 'servebench',
    },
  ),
  s(
    '--max-retries',
    'int',
    'Client',
    'Retry a request that failed before its response body (connect error, 429, 5xx) up to N times, honouring Retry-After.',
    { default: '0', parity: 'servebench' },
  ),
  s(
    '--max-failure-ratio',
    'number',
    'Client',
    'Warn on stderr when more than this fraction of requests failed.',
    { default: '0.05', parity: 'servebench' },
  ),
  s(
    '--fail-on-error-ratio',
    'number',
    'Client',
    'Exit 1 when more than this fraction of requests failed (default: never).',
    { parity: 'servebench' },
  ),
  s(
    '--client-check',
    'string',
    'Client',
    'When the client itself was the bottleneck (event-loop delay or busy share, dispatch lag, GC past the limits in docs/client-health.md, which scale with the latencies measured): fail exits 4 after writing the result, warn only prints the self-check line, off skips the check.',
    { default: 'fail', choices: ['fail', 'warn', 'off'], parity: 'servebench' },
  ),
  s(
    '--client-threads',
    'string',
    'Client',
    'Send and time the requests from N worker threads, each with its own share of the schedule, its slots of --max-concurrency and its own connection pool; the main thread starts, stops and merges them. 1 sends from the main thread; auto chooses from the cores and the offered load (1 on 2 cores or a light load; docs/scaling-the-client.md).',
    { default: 'auto', parity: 'servebench' },
  ),
  s(
    '--segment',
    'string',
    'Client',
    'i/n (0-based): send only requests i, i+n, i+2n, … of the seeded schedule and write a segment file for `servebench merge` (also SERVEBENCH_SEGMENT, or JOB_COMPLETION_INDEX with SERVEBENCH_SEGMENT_COUNT).',
    { parity: 'servebench' },
  ),
  s(
    '--start-at',
    'string',
    'Client',
    'Unix time in ms at which the timed run starts (after the ready check and warm-ups), so that segments on several machines start together.',
    { parity: 'servebench' },
  ),
  s(
    '--config',
    'string',
    'Client',
    'Read flags from a YAML file: keys are long flag names (num-prompts: 100); flags on the command line win.',
    { parity: 'python' },
  ),
  s(
    '--help',
    'boolean',
    'Client',
    'Show this help; --help=<group or keyword> shows one group or the flags whose names contain the word.',
    { aliases: ['-h'], parity: 'servebench' },
  ),
]

/** Lookup by canonical name and alias, with underscores accepted in place of dashes (as Python's parser). */
export const FLAG_INDEX: ReadonlyMap<string, FlagSpec> = new Map(
  SERVE_FLAGS.flatMap((flag) => [flag.name, ...(flag.aliases ?? [])].map((name) => [name, flag] as const)),
)

export function findFlag(token: string): FlagSpec | undefined {
  return FLAG_INDEX.get(token.startsWith('--') ? `--${token.slice(2).replaceAll('_', '-')}` : token)
}
