/**
 * The dataset registry: every dataset module, in the order the docs and `--help` list them. The
 * `--dataset-name` choices, the dataset rows of `cli/flags.ts`, the resolver of each name, the
 * generator of each config kind, the DSL builders and the table of docs/datasets.md derive from it.
 */
import { strict as assert } from 'node:assert'
import type { DatasetConfig } from '../config/bench-config.ts'
import type { DatasetFlagResolver } from '../config/dataset-flag-checks.ts'
import type { DatasetResolvers } from '../config/resolve.ts'
import type { DatasetFlagRow, DatasetModule } from './dataset-module.ts'
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

/** Every dataset module, in docs order. */
export const DATASET_REGISTRY: readonly DatasetModule[] = [
  randomDataset,
  randomMmDataset,
  randomRerankDataset,
  multiTurnDataset,
  customDataset,
  customAudioDataset,
  customImageDataset,
  sonnetDataset,
  prefixRepetitionDataset,
  burstGptDataset,
  speedBenchDataset,
  specBenchDataset,
  timedTraceDataset,
  shareGptDataset,
  hfDataset,
]

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
