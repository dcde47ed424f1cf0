/**
 * The dataset registry: every dataset module, by its DSL builder, in the order the docs and
 * `--help` list them. The `--dataset-name` choices, the dataset rows of `cli/flags.ts`, the resolver
 * of each name, the generator and run hooks of each config kind, the DSL builders and their option
 * types, the config union of `BenchConfig.dataset` and the table of docs/datasets.md derive from it.
 */
import { strict as assert } from 'node:assert'
import type { DatasetFlagResolver } from '../config/dataset-flag-checks.ts'
import type { DatasetResolvers } from '../config/resolve.ts'
import type { DatasetFlagRow, DatasetModule, TaggedDataset } from './dataset-module.ts'
import { hfDataset } from './hub/hf.ts'
import { shareGptDataset } from './hub/sharegpt.ts'
import { burstGptDataset } from './local/burstgpt.ts'
import { customDataset } from './local/custom.ts'
import { customAudioDataset } from './local/custom-audio.ts'
import { customImageDataset } from './local/custom-image.ts'
import { sonnetDataset } from './local/sonnet.ts'
import { specBenchDataset } from './local/spec-bench.ts'
import { speedBenchDataset } from './local/speed-bench.ts'
import { timedTraceDataset } from './local/timed-trace.ts'
import { multiTurnDataset } from './random/multi-turn.ts'
import { prefixRepetitionDataset } from './random/prefix-repetition.ts'
import { randomDataset } from './random/random.ts'
import { randomMmDataset } from './random/random-mm.ts'
import { randomRerankDataset } from './random/random-rerank.ts'

export type { DatasetModule } from './dataset-module.ts'

/**
 * Every dataset module by its builder name (each module's `builder`), in docs order. The comment of
 * an entry is the documentation of its builder, `datasets.<name>()`.
 */
export const DATASETS = {
  /** Random token prompts of `inputLen` tokens asking for `outputLen` tokens (`--dataset-name random`). */
  random: randomDataset,
  /** Random text plus synthetic JPEG images, for `openai-chat` (`--dataset-name random-mm`). */
  randomMm: randomMmDataset,
  /** One query and batches of documents for rerank or embedding backends (`--dataset-name random-rerank`). */
  randomRerank: randomRerankDataset,
  /** Synthetic conversations sent turn by turn with history, for `openai-chat` (`--multi-turn`). @experimental */
  multiTurn: multiTurnDataset,
  /** Your JSONL prompts (`--dataset-name custom`); `outputLen: -1` takes each line's `output_tokens`. */
  custom: customDataset,
  /** JSONL prompts with a WAV, FLAC or MP3 file each, sent by `openai-audio`, or by `openai-chat` as `input_audio` parts (`--dataset-name custom_audio`). */
  customAudio: customAudioDataset,
  /** JSONL prompts with images, or interleaved text and image parts, for `openai-chat` (`--dataset-name custom_image`). */
  customImage: customImageDataset,
  /** Shakespeare's sonnets: a shared prefix of lines plus sampled lines (`--dataset-name sonnet`). */
  sonnet: sonnetDataset,
  /** `numPrefixes` shared random prefixes with random suffixes (`--dataset-name prefix_repetition`). */
  prefixRepetition: prefixRepetitionDataset,
  /** Request and response lengths of GPT-4 rows in a BurstGPT CSV (`--dataset-name burstgpt`). */
  burstgpt: burstGptDataset,
  /** NVIDIA SPEED-Bench `{subset}.jsonl` (`--dataset-name speed_bench`). */
  speedBench: speedBenchDataset,
  /** Spec-Bench `question.jsonl` (`--dataset-name spec_bench`). */
  specBench: specBenchDataset,
  /** A Mooncake-style trace replayed at its timestamps (`--dataset-name timed_trace`). */
  timedTrace: timedTraceDataset,
  /** ShareGPT conversations from a JSON file, or downloaded from the hub (`--dataset-name sharegpt`). */
  sharegpt: shareGptDataset,
  /** A Hugging Face dataset by id, or a local copy (`--dataset-name hf`). */
  hf: hfDataset,
}

type Modules = typeof DATASETS

/** The name of a DSL builder: `datasets.<name>()`. */
export type DatasetBuilderName = keyof Modules

/** What a module is typed with: its spec kind, its config and its options. */
type PartsOf<M> =
  M extends DatasetModule<infer Kind, infer Config, infer Options>
    ? { kind: Kind; config: Config; options: Options }
    : never

/** The resolved config of every dataset: what `BenchConfig.dataset` may be. */
export type DatasetConfig = { [B in DatasetBuilderName]: PartsOf<Modules[B]>['config'] }[DatasetBuilderName]

/** The options `datasets.<name>()` takes. */
export type DatasetOptionsOf<B extends DatasetBuilderName> = PartsOf<Modules[B]>['options']

/** What `datasets.<name>()` returns: its options, tagged with the dataset's kind. */
export type DatasetSpecOf<B extends DatasetBuilderName> = TaggedDataset<
  DatasetOptionsOf<B>,
  PartsOf<Modules[B]>['kind']
>

/** Any tagged dataset, as a builder returns it: what `serveBench`'s `dataset` option takes. */
export type DatasetSpec = { [B in DatasetBuilderName]: DatasetSpecOf<B> }[DatasetBuilderName]

/** A builder: its options may be left out when none is required. */
type Builder<Options, Spec> =
  Partial<Options> extends Options ? (options?: Options) => Spec : (options: Options) => Spec

/** The DSL's `datasets` object: one builder per module, documented in {@link DATASETS}. */
export type DatasetBuilders = {
  readonly [B in DatasetBuilderName]: Builder<DatasetOptionsOf<B>, DatasetSpecOf<B>>
}

/** Every dataset module, in docs order. */
export const DATASET_REGISTRY: readonly DatasetModule[] = Object.values(DATASETS)

const BY_KIND: ReadonlyMap<string, DatasetModule> = new Map(
  DATASET_REGISTRY.map((entry) => [entry.kind, entry]),
)

/** The module whose spec `kind` this is (`multi-turn` included); undefined for an unknown kind. */
export function datasetOf(kind: string): DatasetModule | undefined {
  return BY_KIND.get(kind)
}

/** The module of a resolved dataset config. */
export function moduleOf(dataset: DatasetConfig): DatasetModule {
  const module = BY_KIND.get(dataset.kind)
  assert(module, `no dataset module for ${dataset.kind}. This is a bug in servebench.`)
  return module
}

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

/** The generator of a resolved dataset config. */
export function generatorOf(dataset: DatasetConfig): Generator {
  const module = BY_KIND.get(dataset.kind)
  assert(module?.generate, `no generator for dataset ${dataset.kind}. This is a bug in servebench.`)
  return module.generate.bind(module)
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
