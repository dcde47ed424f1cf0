/**
 * What one dataset module declares: its names, its DSL builder and fields, the `servebench serve`
 * flag rows it reads, its flag resolver and its generator. `registry.ts` lists the modules; the
 * `--dataset-name` choices, the dataset rows of the flag table, the DSL builders and the tables of
 * docs/datasets.md all derive from that list.
 */
import type { BackendName, DatasetConfig } from '../config/bench-config.ts'
import type { DatasetFlagResolver } from '../config/dataset-flag-checks.ts'
import type { FieldSpec } from '../config/dsl-fields.ts'
import type { SampleRequest } from '../config/records.ts'
import type { Tokenizer } from '../tokenizer/index.ts'

/** What every dataset generator gets besides its own config. */
export interface DatasetContext {
  tokenizer: Tokenizer
  /** `--num-prompts`. */
  numPrompts: number
  /** `--seed`: the same seed gives the same requests. */
  seed: number
  /** The run's backend: the chat backends leave the chat template to the server. undefined = completions. */
  backend?: BackendName
  /** `--chat-template-kwargs`, passed to the tokenizer's chat template. */
  chatTemplateKwargs?: Record<string, unknown>
}

/**
 * One `servebench serve` flag a dataset reads, as `cli/flags.ts` lists it (group `Dataset`). A row
 * is written once, in the module that owns it; datasets that share a flag share the row object.
 */
export interface DatasetFlagRow {
  name: string
  aliases?: string[]
  type: 'string' | 'number' | 'int' | 'boolean'
  help: string
  /** Shown in --help; undefined = no default. */
  default?: string
  choices?: readonly string[]
  /** @default 'supported' */
  status?: 'supported' | 'accepted' | 'planned'
  /** Where the flag comes from. @default 'both' */
  parity?: 'both' | 'python' | 'rust' | 'servebench'
}

/** A flag row: `name`, its type and help, and the optional rest. */
export const flagRow = (
  name: string,
  type: DatasetFlagRow['type'],
  help: string,
  extra: Omit<DatasetFlagRow, 'name' | 'type' | 'help'> = {},
): DatasetFlagRow => ({ name, type, help, ...extra })

/** A dataset's DSL field table, checked against its options type: every option has a flag. */
export type DslFieldTable<Options> = { readonly [K in keyof Required<Options>]: FieldSpec }

/** One dataset: one `datasets.<builder>()`, one `--dataset-name` (and aliases). */
export interface DatasetModule {
  /** The spec's `kind`, which is its `--dataset-name` (`multi-turn` is `--multi-turn` over `random`). */
  kind: string
  /** The `--dataset-name` the CLI reads for it. */
  datasetName: string
  /** Other `--dataset-name` spellings (Rust's dashes). */
  aliases?: readonly string[]
  /** Its builder: `datasets.<builder>()`. */
  builder: string
  /** What it is, as docs/datasets.md's table says it. */
  summary: string
  /** DSL field → flag. */
  fields: Readonly<Record<string, FieldSpec>>
  /** The dataset flags it reads, beyond the shared ones of `cli/flags.ts` (`--dataset-path`, `--num-prompts`, ...). */
  flags: readonly DatasetFlagRow[]
  /** Reads its flags into its config; none for `multi-turn`, which `--multi-turn` turns on over `random`. */
  resolve?: DatasetFlagResolver
  /** Produces its requests; none for `multi-turn`, which the multi-turn runner drives. */
  generate?(config: DatasetConfig, context: DatasetContext): Promise<SampleRequest[]>
}

/**
 * A dataset module whose generator takes its own config kind (`generate` is only ever called with
 * the config its `resolve` returned).
 */
export function defineDataset<K extends DatasetConfig['kind']>(
  module: Omit<DatasetModule, 'generate'> & {
    generate?: (
      config: Extract<DatasetConfig, { kind: K }>,
      context: DatasetContext,
    ) => Promise<SampleRequest[]>
  },
): DatasetModule {
  return module as DatasetModule
}
