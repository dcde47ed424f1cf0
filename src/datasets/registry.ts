/**
 * The dataset registry: every dataset module, in the order the docs and `--help` list them. The
 * `--dataset-name` choices, the dataset rows of `cli/flags.ts`, the resolver of each name, the
 * generator of each config kind, the DSL builders and the table of docs/datasets.md derive from it.
 */
import { strict as assert } from 'node:assert'
import type { DatasetConfig } from '../config/bench-config.ts'
import type { DatasetFlagResolver } from '../config/dataset-flag-checks.ts'
import { f } from '../config/dsl-fields.ts'
import type { DatasetResolvers } from '../config/resolve.ts'
import type { DatasetFlagRow, DatasetModule } from './dataset-module.ts'
import { LEGACY_GENERATORS, LEGACY_RESOLVERS } from './legacy.ts'
import { multiTurnDataset } from './random/multi-turn.ts'
import { prefixRepetitionDataset } from './random/prefix-repetition.ts'
import { randomDataset } from './random/random.ts'
import { randomMmDataset } from './random/random-mm.ts'
import { randomRerankDataset } from './random/random-rerank.ts'

export type { DatasetModule } from './dataset-module.ts'

const numPrompts = f('--num-prompts')
const order = {
  disableShuffle: f('--disable-shuffle', 'switch'),
  noOversample: f('--no-oversample', 'switch'),
}
const path = f('--dataset-path')

const LEGACY: readonly Omit<DatasetModule, 'flags'>[] = [
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

/** Every dataset module, in docs order. */
export const DATASET_REGISTRY: readonly DatasetModule[] = [
  randomDataset,
  randomMmDataset,
  randomRerankDataset,
  multiTurnDataset,
  ...LEGACY.filter((e) => e.kind.startsWith('custom')).map(legacyModule),
  ...LEGACY.filter((e) => e.kind === 'sonnet').map(legacyModule),
  prefixRepetitionDataset,
  ...LEGACY.filter((e) => !e.kind.startsWith('custom') && e.kind !== 'sonnet').map(legacyModule),
]

function legacyModule(entry: Omit<DatasetModule, 'flags'>): DatasetModule {
  const resolve = LEGACY_RESOLVERS[entry.datasetName]
  const generate = LEGACY_GENERATORS[entry.kind]
  return { ...entry, flags: [], ...(resolve ? { resolve } : {}), ...(generate ? { generate } : {}) }
}

/** The registry by `kind`. */
export const DATASET_FIELDS: Readonly<Record<string, DatasetModule>> = Object.fromEntries(
  DATASET_REGISTRY.map((entry) => [entry.kind, entry]),
)

/** Every `--dataset-name` value the CLI accepts: each dataset's name and its aliases. */
export const DATASET_NAMES: readonly string[] = DATASET_REGISTRY.filter(
  (e) => e.resolve !== undefined,
).flatMap((e) => [e.datasetName, ...(e.aliases ?? [])])

/**
 * The dataset flag rows of `servebench serve`, each once, in registry order. A row that several
 * datasets read is one object they share (a test checks that no flag is written twice).
 */
export const DATASET_FLAG_ROWS: readonly DatasetFlagRow[] = [
  ...new Map(DATASET_REGISTRY.flatMap((e) => e.flags).map((row) => [row.name, row])).values(),
]

const RESOLVERS: ReadonlyMap<string, DatasetFlagResolver> = new Map(
  DATASET_REGISTRY.flatMap((e) =>
    e.resolve ? [e.datasetName, ...(e.aliases ?? [])].map((name) => [name, e.resolve!] as const) : [],
  ),
)

/** What `config/resolve.ts` is handed: the `--dataset-name` choices and the resolver of each. */
export const DATASET_RESOLVERS: DatasetResolvers = {
  names: DATASET_NAMES,
  resolverOf(name: string): DatasetFlagResolver {
    const resolver = RESOLVERS.get(name)
    assert(resolver, `no resolver for --dataset-name ${name}. This is a bug in servebench.`)
    return resolver
  },
}

type Generator = NonNullable<DatasetModule['generate']>

const GENERATORS: ReadonlyMap<string, Generator> = new Map(
  DATASET_REGISTRY.flatMap((e) => (e.generate ? [[e.kind, e.generate.bind(e)] as const] : [])),
)

/** The generator of a resolved dataset config. */
export function generatorOf(dataset: DatasetConfig): Generator {
  const generate = GENERATORS.get(dataset.kind)
  assert(generate, `no generator for dataset ${dataset.kind}. This is a bug in servebench.`)
  return generate
}

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
