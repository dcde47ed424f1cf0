/**
 * The flag rows several dataset families read (file order, chat template, multimodal chat), and the
 * DSL fields and options they share. Each module that reads a row lists the same row object, so
 * `registry.ts` lists it once.
 */
import { type FieldSpec, f } from '../config/dsl-fields.ts'
import type { Reader } from '../config/resolve.ts'
import { type DslFieldTable, flagRow } from './dataset-module.ts'

export const DISABLE_SHUFFLE = flagRow(
  '--disable-shuffle',
  'boolean',
  'Keep dataset order (no effect on random).',
)

export const NO_OVERSAMPLE = flagRow(
  '--no-oversample',
  'boolean',
  'Do not repeat samples of a small dataset (no effect on random).',
)

export const SKIP_CHAT_TEMPLATE = flagRow(
  '--skip-chat-template',
  'boolean',
  "custom, hf (InstructCoder, MT-Bench, HumanEval, GSM8K, Blazedit): send prompts without the tokenizer's chat template.",
)

export const ENABLE_MULTIMODAL_CHAT = flagRow(
  '--enable-multimodal-chat',
  'boolean',
  'custom_audio: send each clip to openai-chat as an input_audio part (required there). Accepted by random-mm and custom_image, whose user message (text, then images) is the same either way.',
)

/** The DSL fields of the flags every dataset module may read (`cli/flags.ts` owns their rows). */
export const PATH_FIELD: FieldSpec = f('--dataset-path')
export const NUM_PROMPTS_FIELD: FieldSpec = f('--num-prompts')

/** `disableShuffle` and `noOversample`, as the file datasets take them. */
export const ORDER_FIELDS: { readonly disableShuffle: FieldSpec; readonly noOversample: FieldSpec } = {
  disableShuffle: f(DISABLE_SHUFFLE.name, 'switch'),
  noOversample: f(NO_OVERSAMPLE.name, 'switch'),
}

/** The rows of {@link ORDER_FIELDS}, listed last in the flags of each dataset that reads them. */
export const ORDER_FLAGS = [DISABLE_SHUFFLE, NO_OVERSAMPLE] as const

/** The fields {@link orderedFileFields} adds to a dataset's own. */
type OrderedFileKeys = 'path' | 'numPrompts' | 'disableShuffle' | 'noOversample'

/**
 * The DSL field table of a file dataset read in order: `path` and `numPrompts`, the dataset's own
 * fields (`own`, checked against its options type), then {@link ORDER_FIELDS}. The keys keep this
 * order, which is the order an unknown-option message lists them in.
 */
export function orderedFileFields<Options extends { [K in OrderedFileKeys]?: unknown }>(
  own: Omit<DslFieldTable<Options>, OrderedFileKeys>,
): DslFieldTable<Options> {
  // The four added keys are the ones `own` leaves out, so the whole is the options' table.
  return {
    path: PATH_FIELD,
    numPrompts: NUM_PROMPTS_FIELD,
    ...own,
    ...ORDER_FIELDS,
  } as DslFieldTable<Options>
}

/** The order switches as a file dataset's resolved config holds them. */
export interface OrderConfig {
  disableShuffle: boolean
  noOversample: boolean
}

/** Reads {@link ORDER_FLAGS} into a dataset's config. */
export function readOrder(read: Reader): OrderConfig {
  return { disableShuffle: read.bool(DISABLE_SHUFFLE.name), noOversample: read.bool(NO_OVERSAMPLE.name) }
}

/** The option every dataset takes. */
export interface CommonOptions {
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
}

/** The common and order options of the local file datasets. */
export interface OrderOptions extends CommonOptions {
  /** Keep file order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat rows when the file has fewer than `numPrompts` (`--no-oversample`). @default false */
  noOversample?: boolean
}

/** The common and order options of the hub datasets, in their words. */
export interface HubOrderOptions {
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Keep dataset order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat rows when fewer than `numPrompts` are usable (`--no-oversample`). @default false */
  noOversample?: boolean
}
