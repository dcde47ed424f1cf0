/**
 * DSL options of the hub datasets (`datasets.sharegpt()`, `datasets.hf()`) and their validation
 * into `DatasetConfig`s. `from-dsl.ts` calls {@link resolveHubDatasetSpec}.
 */
import type { ConfigIssue } from '../errors.ts'
import { resolveAsrSpec } from './audio-datasets-config.ts'
import type { HfDatasetConfig, ShareGptDatasetConfig } from './bench-config.ts'

interface OrderOptions {
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Keep dataset order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat rows when fewer than `numPrompts` are usable (`--no-oversample`). @default false */
  noOversample?: boolean
}

/** Options of `datasets.sharegpt` (`--dataset-name sharegpt`). See docs/datasets-hub.md. */
export interface ShareGptDatasetOptions extends OrderOptions {
  /** A ShareGPT JSON file. @default ShareGPT_V3_unfiltered_cleaned_split.json from the hub cache */
  path?: string
  /** Output tokens per request (`--sharegpt-output-len`). @default the token count of turn 1 */
  outputLen?: number
}

/** Options of `datasets.hf` (`--dataset-name hf`). See docs/datasets-hub.md. */
export interface HfDatasetOptions extends OrderOptions {
  /** A dataset id on the hub, or a local parquet/JSON/JSONL file or folder (`--dataset-path`). */
  path: string
  /** The dataset id that picks the family when `path` is local (`--hf-name`). @default path */
  hfName?: string
  /** Config (`--hf-subset`). @default 'default', else the first */
  subset?: string
  /** Split (`--hf-split`). @default the family's (MMVU validation, MMStar val), else train > test > validation > the first */
  split?: string
  /** Output tokens per request (`--hf-output-len`). @default the family's, else the reference's tokens */
  outputLen?: number
  /** Prompt column (`--hf-text-column`). @default auto-detected */
  textColumn?: string
  /** Send InstructCoder, MT-Bench and Blazedit prompts without the chat template (`--skip-chat-template`). @default false */
  skipChatTemplate?: boolean
  /** ASR families: skip rows whose audio is shorter than this many seconds (`--asr-min-audio-len-sec`). @default 0 */
  asrMinAudioLenS?: number
  /** ASR families: skip rows whose audio is longer than this many seconds (`--asr-max-audio-len-sec`). @default Infinity */
  asrMaxAudioLenS?: number
  /** BFCL v3 categories to sample (`--bfcl-categories`). @default ['simple', 'live_simple', 'multiple'] */
  bfclCategories?: string[]
}

export interface ShareGptDatasetSpec extends ShareGptDatasetOptions {
  readonly kind: 'sharegpt'
}
export interface HfDatasetSpec extends HfDatasetOptions {
  readonly kind: 'hf'
}
export type HubDatasetSpec = ShareGptDatasetSpec | HfDatasetSpec

export function isHubDatasetSpec(spec: { kind: string }): spec is HubDatasetSpec {
  return spec.kind === 'sharegpt' || spec.kind === 'hf'
}

/** Validates a hub dataset spec; every problem goes to `issues` with its path. */
export function resolveHubDatasetSpec(
  spec: HubDatasetSpec,
  issues: ConfigIssue[],
  at: (path: string) => string,
): ShareGptDatasetConfig | HfDatasetConfig {
  const order = { disableShuffle: spec.disableShuffle ?? false, noOversample: spec.noOversample ?? false }
  if (spec.outputLen !== undefined && !(Number.isInteger(spec.outputLen) && spec.outputLen >= 1)) {
    issues.push({
      path: at('dataset.outputLen'),
      message: `must be an integer of at least 1 (got ${spec.outputLen})`,
    })
  }
  const optional = <K extends string>(key: K, value: unknown) =>
    value === undefined ? {} : ({ [key]: value } as Record<K, never>)
  if (spec.kind === 'sharegpt') {
    return {
      kind: 'sharegpt',
      ...order,
      ...optional('path', spec.path),
      ...optional('outputLen', spec.outputLen),
    }
  }
  const categories = spec.bfclCategories
  if (
    categories !== undefined &&
    !(Array.isArray(categories) && categories.every((c) => typeof c === 'string' && c !== ''))
  ) {
    issues.push({
      path: at('dataset.bfclCategories'),
      message: 'must be a list of BFCL category names such as simple',
    })
  }
  if (typeof spec.path !== 'string' || spec.path === '') {
    issues.push({
      path: at('dataset.path'),
      message: 'must be a dataset id such as openai/gsm8k, or a local file or folder',
    })
  }
  return {
    kind: 'hf',
    path: spec.path ?? '',
    ...order,
    ...optional('hfName', spec.hfName),
    ...optional('subset', spec.subset),
    ...optional('split', spec.split),
    ...optional('outputLen', spec.outputLen),
    ...optional('textColumn', spec.textColumn),
    ...optional('skipChatTemplate', spec.skipChatTemplate),
    ...optional('asrAudioLenS', resolveAsrSpec(spec, { issues, at })),
    ...optional('bfclCategories', spec.bfclCategories),
  }
}
