/**
 * What one dataset module declares: its names, its config and DSL option types, its DSL builder and
 * fields, the `servebench serve` flag rows it reads, its flag resolver, its generator, and the hooks
 * through which the DSL door and the runner ask it what only it knows. `registry.ts` lists the
 * modules; the `--dataset-name` choices, the dataset rows of the flag table, the DSL builders, the
 * config and option unions and the tables of docs/datasets.md all derive from that list.
 */
import type { BackendName, DatasetConfig, MultiTurnConfig } from '../config/bench-config.ts'
import type { DatasetFlagContext } from '../config/dataset-flag-checks.ts'
import type { FieldSpec } from '../config/dsl-fields.ts'
import type { SampleRequest } from '../config/records.ts'
import type { Reader } from '../config/resolve.ts'
import type { ConfigIssue } from '../errors.ts'
import type { Tokenizer } from '../tokenizer/index.ts'
import type { Conversation, MultiTurnDatasetContext } from './conversation.ts'

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

/**
 * A dataset's DSL field table, checked against its options type: every option has a flag. A nested
 * option is written as its dotted fields (`'labels.timestamp'`), each a flag of its own.
 */
export type DslFieldTable<Options> = { readonly [K in keyof Required<Options>]: FieldSpec }

/** A tagged dataset, as its DSL builder returns it: its options and its `kind`. */
export type TaggedDataset<Options, Kind extends string> = Options & { readonly kind: Kind }

/**
 * What the DSL door (`options/dsl-door.ts`) lends a dataset's {@link DatasetDsl.toFlags}: how to
 * set a flag, read a table of fields, report an issue and find another dataset.
 */
export interface DslDoor {
  /** Sets `flag` to `value`; `path` is the DSL field it came from (`dataset.source`). */
  set(flag: string, value: string | string[] | true, path: string): void
  /**
   * Reads `value` (which must be an object) through `table`, each field into its flag, with its
   * unknown keys as issues; `prefix` is its DSL path, `where` names it in messages.
   */
  fields(
    value: unknown,
    table: Readonly<Record<string, FieldSpec>>,
    prefix: string,
    where: string,
    extraKeys?: readonly string[],
  ): void
  /** An issue at `path`, a DSL path below the benchmark (`dataset.source`). */
  issue(path: string, message: string): void
  /** The dataset module whose spec `kind` this is. */
  datasetOf(kind: string): DatasetModule | undefined
}

/** How `load.trace()` replays a dataset that carries its own send times. */
export interface TraceReplay<Config> {
  /** Why these options cannot be replayed, as an issue at a DSL path below the benchmark; else undefined. */
  refuse(options: Readonly<Record<string, unknown>>): { path: string; message: string } | undefined
  /** The resolved config with `load.trace({ timeScale })` applied. */
  scale(config: Config, timeScale: number): Config
}

/** What the DSL door asks a dataset beyond its field table. */
export interface DatasetDsl<Options, Config> {
  /** Option keys that are not in the field table: {@link toFlags} reads them. */
  keys?: ReadonlyArray<keyof Options & string>
  /** Sets the flags the field table cannot express; called after the table's flags are set. */
  toFlags?(options: Readonly<Record<string, unknown>>, door: DslDoor): void
  /** Texts of the resolver's messages about this dataset and their DSL words, replaced before flag names are. */
  words?: ReadonlyArray<readonly [text: string, dsl: string]>
  /** Present when `load.trace()` can replay this dataset at its own timestamps. */
  traceReplay?: TraceReplay<Config>
}

/**
 * One dataset: one `datasets.<builder>()`, one `--dataset-name` (and aliases). `Config` is what its
 * resolver returns and its generator reads, `Options` what its DSL builder takes. The defaults are
 * any dataset's: `DatasetModule` is every module (its options only name keys, so `never` admits all).
 */
export interface DatasetModule<
  Kind extends string = string,
  Config extends { kind: string } = DatasetConfig,
  Options extends object = never,
> {
  /** The spec's `kind`, which is its `--dataset-name` (`multi-turn` is `--multi-turn` over `random`). */
  kind: Kind
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
  resolve?: (read: Reader, context: DatasetFlagContext) => Config
  /** Produces its requests; none for `multi-turn`, whose conversations come from its source. */
  generate?(config: Config, context: DatasetContext): Promise<SampleRequest[]>
  /** What the DSL door asks it beyond its field table (a nested source, `load.trace()`). */
  dsl?: DatasetDsl<Options, Config>
  /** Python fits its prompts to the server's tokenizer (`main_async`: random, prefix_repetition). */
  alignsToServerTokenizer?: boolean
  /** Send offsets its requests carry, which replace the computed schedule (a self-timed trace). */
  sendOffsetsS?(requests: readonly SampleRequest[]): number[] | undefined
  /** What a run refuses before anything is sent (exit 2) that its resolver lets through. */
  runIssues?(config: Config): ConfigIssue[]
  /** Its conversations, when `--multi-turn` can read it. */
  conversations?(
    config: Config,
    multiTurn: MultiTurnConfig,
    context: MultiTurnDatasetContext,
  ): Promise<Conversation[]>
}

/**
 * A dataset module, typed with its config and options (`Kind` is the config's kind unless given:
 * `multi-turn` has no config of its own). The registry derives the config union, the DSL builders
 * and their option types from these.
 */
export function defineDataset<
  Config extends { kind: string },
  Options extends object,
  Kind extends string = Config['kind'],
>(module: DatasetModule<Kind, Config, Options>): DatasetModule<Kind, Config, Options> {
  return module
}
