/**
 * The dataset registry: one entry per `datasets.<builder>()` (and so per `--dataset-name`), with
 * its builder, its aliases, the line the docs show, and which flag each of its fields is. The
 * `--dataset-name` choices, the resolver's names, the DSL builders and the table of
 * docs/datasets.md all derive from it.
 */
import { type FieldSpec, f } from './dsl-fields.ts'

/** One dataset as both doors see it. */
export interface DatasetEntry {
  /** The spec's `kind`, which is its `--dataset-name` (`multi-turn` is `--multi-turn` over `random`). */
  kind: string
  /** Other `--dataset-name` spellings (Rust's dashes). */
  aliases?: readonly string[]
  /** The `--dataset-name` the CLI reads for it. */
  datasetName: string
  /** Its builder: `datasets.<builder>()`. */
  builder: string
  /** What it is, as docs/datasets.md's table says it. */
  summary: string
  /** DSL field → flag. */
  fields: Readonly<Record<string, FieldSpec>>
}

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

export const DATASET_REGISTRY: readonly DatasetEntry[] = [
  {
    kind: 'random',
    summary: 'random token prompts of exact length (the default)',
    datasetName: 'random',
    builder: 'random',
    fields: {
      ...randomLengths,
      numPrompts,
      batchSize: f('--random-batch-size'),
      promptTokenIds: f('--prompt-token-ids', 'switch'),
    },
  },
  {
    kind: 'random-mm',
    summary: 'random text plus random-pixel JPEG images and MP4 videos (`openai-chat`)',
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
  {
    kind: 'random-rerank',
    summary: 'one query and batches of documents (rerank and embedding backends)',
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
  {
    kind: 'multi-turn',
    summary: 'synthetic conversations sent turn by turn (`openai-chat`)',
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
  {
    kind: 'custom',
    summary: 'your JSONL prompts',
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
  {
    kind: 'custom_audio',
    summary:
      'your JSONL prompts with a WAV, FLAC or MP3 file each (`openai-audio`, or `openai-chat` with `--enable-multimodal-chat`)',
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
  {
    kind: 'custom_image',
    summary: 'your JSONL prompts with images, or interleaved text and images (`openai-chat`)',
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
  {
    kind: 'sonnet',
    summary: "Shakespeare's sonnets (built in) or any text file",
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
  {
    kind: 'prefix_repetition',
    aliases: ['prefix-repetition'],
    summary: 'shared random prefixes with per-request suffixes',
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
  {
    kind: 'burstgpt',
    summary: 'request and response lengths of a BurstGPT CSV',
    datasetName: 'burstgpt',
    builder: 'burstgpt',
    fields: { path, numPrompts },
  },
  {
    kind: 'speed_bench',
    aliases: ['speed-bench'],
    summary: 'NVIDIA SPEED-Bench, prepared locally',
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
  {
    kind: 'spec_bench',
    summary: "Spec-Bench's `question.jsonl`",
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
  {
    kind: 'timed_trace',
    aliases: ['timed-trace'],
    summary: 'a Mooncake-style trace replayed at its timestamps',
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
  {
    kind: 'sharegpt',
    summary: 'ShareGPT conversations, from a file or the hub ([datasets-hub.md](datasets-hub.md))',
    datasetName: 'sharegpt',
    builder: 'sharegpt',
    fields: { path, numPrompts, outputLen: f('--sharegpt-output-len'), ...order },
  },
  {
    kind: 'hf',
    summary:
      'a Hugging Face dataset by id, or a local copy, including the image and video families (`openai-chat`) ([datasets-hub.md](datasets-hub.md))',
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
]

/** The registry by `kind`. */
export const DATASET_FIELDS: Readonly<Record<string, DatasetEntry>> = Object.fromEntries(
  DATASET_REGISTRY.map((entry) => [entry.kind, entry]),
)

/** Every `--dataset-name` value the CLI accepts: each dataset's name and its aliases. */
export const DATASET_NAMES: readonly string[] = DATASET_REGISTRY.filter(
  (e) => e.kind !== 'multi-turn',
).flatMap((e) => [e.datasetName, ...(e.aliases ?? [])])

/** The dataset table of docs/datasets.md (a test checks that the docs hold it). */
export function renderDatasetTable(): string {
  const rows = DATASET_REGISTRY.map((e) => {
    const names =
      e.kind === 'multi-turn'
        ? `\`${e.datasetName}\` with \`--multi-turn\``
        : [e.datasetName, ...(e.aliases ?? [])].map((n, i) => (i === 0 ? `\`${n}\`` : `(\`${n}\`)`)).join(' ')
    return `| ${names} | \`datasets.${e.builder}()\` | ${e.summary} |`
  })
  return ['| `--dataset-name` | DSL builder | What it is |', '|---|---|---|', ...rows].join('\n')
}
