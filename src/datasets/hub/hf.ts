import { type DatasetFlagContext, needsTokenizer } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { type ConfigIssue, DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { renderUserPrompt, usesChatTemplate } from '../chat-prompt.ts'
import { type DatasetContext, defineDataset, flagRow, type TaggedDataset } from '../dataset-module.ts'
import {
  type HubOrderOptions,
  ORDER_FLAGS,
  type OrderConfig,
  orderedFileFields,
  readOrder,
  SKIP_CHAT_TEMPLATE,
} from '../shared-flags.ts'
import {
  ASR_MAX_AUDIO_LEN,
  ASR_MIN_AUDIO_LEN,
  isAsrDataset,
  readAsrFlags,
  sampleAsr,
} from './hf-audio-families.ts'
import { BFCL_CATEGORIES, BFCL_ID, generateBfcl, parseBfclCategories } from './hf-bfcl.ts'
import { detectColumns, extractRow, type Row } from './hf-columns.ts'
import { findFamily, type HfFamily } from './hf-families.ts'
import { requireChatBackend } from './hf-image-families.ts'
import { generateMlperf, MLPERF_IDS } from './hf-mlperf.ts'
import { loadHfRows } from './hf-source.ts'
import { isValidSequence, oversample } from './hub-sampling.ts'
import { generateShareGptConversations } from './multi-turn-sharegpt.ts'
import { TO_COUNT } from './sharegpt.ts'

/** The options of `datasets.hf` that its config keeps as given. */
type HfGivenOptions = Pick<
  HfDatasetOptions,
  'path' | 'hfName' | 'subset' | 'split' | 'outputLen' | 'textColumn' | 'skipChatTemplate' | 'bfclCategories'
>

/**
 * `--dataset-name hf`: a Hugging Face dataset by id (datasets-server parquet shards or repo files).
 * It keeps the options it names as given (see {@link HfDatasetOptions}); the Blazedit distances and
 * the audio lengths become ranges.
 */
export interface HfDatasetConfig extends OrderConfig, HfGivenOptions {
  kind: 'hf'
  /** `--blazedit-min-distance` / `--blazedit-max-distance`: keep Blazedit rows whose `norm_distance` is in range. */
  blazeditDistance?: { min: number; max: number }
  /** `--asr-min-audio-len-sec` / `--asr-max-audio-len-sec`: the ASR families keep rows whose audio lasts this long (seconds). */
  asrAudioLenS?: { min: number; max: number }
}

/** Options of `datasets.hf` (`--dataset-name hf`). See docs/datasets-hub.md. */
export interface HfDatasetOptions extends HubOrderOptions {
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
  /** Blazedit: keep rows whose edit distance is at least this fraction (`--blazedit-min-distance`). @default 0 */
  blazeditMinDistance?: number
  /** Blazedit: keep rows whose edit distance is at most this fraction (`--blazedit-max-distance`). @default 1 */
  blazeditMaxDistance?: number
  /** BFCL v3 categories to sample (`--bfcl-categories`). @default ['simple', 'live_simple', 'multiple'] */
  bfclCategories?: string[]
}

/** A tagged `hf` dataset, as `datasets.hf()` returns it (a multi-turn `source`). */
export type HfDatasetSpec = TaggedDataset<HfDatasetOptions, 'hf'>

const HF_NAME = flagRow(
  '--hf-name',
  'string',
  'hf: dataset id that picks the family when --dataset-path is local.',
  {
    parity: 'python',
  },
)
const HF_SUBSET = flagRow(
  '--hf-subset',
  'string',
  'hf: config; default the family one (GSM8K: main), else "default", else the first.',
)
const HF_SPLIT = flagRow(
  '--hf-split',
  'string',
  "hf: split; default the family's (GSM8K, HumanEval: test), else train > test > validation > the first.",
)
const HF_OUTPUT_LEN = flagRow(
  '--hf-output-len',
  'int',
  "hf: fixed output length; default the family's, else the reference.",
)
const HF_TEXT_COLUMN = flagRow('--hf-text-column', 'string', 'hf: prompt column; default auto-detected.', {
  parity: 'rust',
})
const NO_STREAM = flagRow('--no-stream', 'boolean', 'Accepted: hf shards are always read whole.', {
  status: 'accepted',
  parity: 'python',
})
const BLAZEDIT_MIN_DISTANCE = flagRow(
  '--blazedit-min-distance',
  'number',
  'hf Blazedit: keep rows with norm_distance ≥ this.',
  { parity: 'python' },
)
const BLAZEDIT_MAX_DISTANCE = flagRow(
  '--blazedit-max-distance',
  'number',
  'hf Blazedit: keep rows with norm_distance ≤ this.',
  { parity: 'python' },
)

/** `--dataset-name hf`: a Hugging Face dataset by id or a local copy, read as its Python family reads it. */
export const hfDataset = defineDataset<HfDatasetConfig, HfDatasetOptions>({
  kind: 'hf',
  summary:
    'a Hugging Face dataset by id, or a local copy, including the image and video families (`openai-chat`) ([datasets-hub.md](datasets-hub.md))',
  datasetName: 'hf',
  builder: 'hf',
  fields: orderedFileFields<HfDatasetOptions>({
    hfName: f(HF_NAME.name),
    subset: f(HF_SUBSET.name),
    split: f(HF_SPLIT.name),
    outputLen: f(HF_OUTPUT_LEN.name),
    textColumn: f(HF_TEXT_COLUMN.name),
    skipChatTemplate: f(SKIP_CHAT_TEMPLATE.name, 'switch'),
    asrMinAudioLenS: f(ASR_MIN_AUDIO_LEN.name),
    asrMaxAudioLenS: f(ASR_MAX_AUDIO_LEN.name),
    blazeditMinDistance: f(BLAZEDIT_MIN_DISTANCE.name),
    blazeditMaxDistance: f(BLAZEDIT_MAX_DISTANCE.name),
    bfclCategories: f(BFCL_CATEGORIES.name, 'csv'),
  }),
  flags: [
    HF_NAME,
    HF_SUBSET,
    HF_SPLIT,
    HF_OUTPUT_LEN,
    HF_TEXT_COLUMN,
    NO_STREAM,
    SKIP_CHAT_TEMPLATE,
    BLAZEDIT_MIN_DISTANCE,
    BLAZEDIT_MAX_DISTANCE,
    ASR_MIN_AUDIO_LEN,
    ASR_MAX_AUDIO_LEN,
    BFCL_CATEGORIES,
    ...ORDER_FLAGS,
  ],
  resolve: resolveHf,
  generate: generateHf,
  conversations: generateShareGptConversations,
})

function resolveHf(read: Reader, context: DatasetFlagContext): HfDatasetConfig {
  needsTokenizer('hf', context, TO_COUNT)
  const path = read.string('--dataset-path')
  const hfName = read.string(HF_NAME.name)
  if (path === undefined || path === '') {
    context.issues.push({
      path: '--dataset-path',
      message:
        'is required with --dataset-name hf: a dataset id such as openai/gsm8k, or a local file or folder',
    })
  }
  const dataset: HfDatasetConfig = {
    kind: 'hf',
    path: path ?? '',
    ...readOrder(read),
  }
  if (hfName !== undefined) dataset.hfName = hfName
  const subset = read.string(HF_SUBSET.name)
  if (subset !== undefined) dataset.subset = subset
  const split = read.string(HF_SPLIT.name)
  if (split !== undefined) dataset.split = split
  const outputLen = read.int(HF_OUTPUT_LEN.name, 1)
  if (outputLen !== undefined) dataset.outputLen = outputLen
  const textColumn = read.string(HF_TEXT_COLUMN.name)
  if (textColumn !== undefined) dataset.textColumn = textColumn
  if (read.bool(SKIP_CHAT_TEMPLATE.name)) dataset.skipChatTemplate = true
  const asr = readAsrFlags(read, hfName ?? path, context)
  if (asr !== undefined) dataset.asrAudioLenS = asr
  const distance = readBlazeditDistance(read, context.issues)
  if (distance !== undefined) dataset.blazeditDistance = distance
  const categories = read.string(BFCL_CATEGORIES.name)
  if (categories !== undefined) {
    dataset.bfclCategories = parseBfclCategories(categories)
    if (dataset.bfclCategories.length === 0)
      context.issues.push({
        path: '--bfcl-categories',
        message: 'must name at least one BFCL category, such as simple,live_simple',
      })
  }
  if ((hfName ?? path) === BFCL_ID && context.backend !== 'openai-chat') {
    context.issues.push({
      path: '--backend',
      message: `must be openai-chat with ${BFCL_ID}: it sends each request's tool schemas in chat completions (got ${context.backend})`,
    })
  }
  return dataset
}

// Python's defaults are 0.0 and 1.0; without either flag no row is filtered.
function readBlazeditDistance(read: Reader, issues: ConfigIssue[]): { min: number; max: number } | undefined {
  const inRange = (name: string): number | undefined => {
    const value = read.number(name)
    if (value !== undefined && (value < 0 || value > 1)) {
      issues.push({ path: name, message: `must be between 0 and 1 (got ${value})` })
      return undefined
    }
    return value
  }
  const min = inRange(BLAZEDIT_MIN_DISTANCE.name)
  const max = inRange(BLAZEDIT_MAX_DISTANCE.name)
  if (min === undefined && max === undefined) return undefined
  const range = { min: min ?? 0, max: max ?? 1 }
  if (range.min > range.max) {
    issues.push({
      path: '--blazedit-min-distance',
      message: `must not exceed --blazedit-max-distance (got ${range.min} > ${range.max})`,
    })
  }
  return range
}

/** Output length when a row has no reference completion and `--hf-output-len` is not given (Rust). */
export const HF_FALLBACK_OUTPUT_LEN = 128
const MIN_PROMPT_TOKENS = 4

/**
 * The `hf` dataset. A Python family (`findFamily`) reads its rows the way Python does, with its
 * default output length and validity limits; any other dataset is read with Rust's column
 * auto-detection (Rust: datasets/hf_dataset.rs). Rows are shuffled with `seed` unless `disableShuffle`; lengths count
 * special tokens, as Python's `tokenizer(text).input_ids`; oversampled unless `noOversample`.
 */
export async function generateHf(config: HfDatasetConfig, context: DatasetContext): Promise<SampleRequest[]> {
  // The ASR families send each row's audio (hf-audio-families.ts).
  const asr = config.textColumn === undefined && isAsrDataset(config.hfName ?? config.path)
  // BFCL and MLPerf build chat messages (and BFCL its own files and tools), so they have their own modules.
  const id = config.hfName ?? config.path
  if (config.textColumn === undefined && id === BFCL_ID) return generateBfcl(config, context)
  if (config.textColumn === undefined && MLPERF_IDS.includes(id)) return generateMlperf(config, context)
  const family = config.textColumn === undefined ? findFamily(config.hfName ?? config.path) : undefined
  if (family !== undefined) requireChatBackend(family, config.hfName ?? config.path, context.backend)
  const split = config.split ?? family?.defaultSplit
  const subset = config.subset ?? family?.defaultSubset
  const rows = await loadHfRows({
    dataset: config.path,
    ...(subset !== undefined ? { subset } : {}),
    ...(split !== undefined ? { split } : {}),
    seed: context.seed,
    disableShuffle: config.disableShuffle,
    minRows: 2 * context.numPrompts,
  })
  if (rows.length === 0) throw new DatasetError(`hf: ${config.path} has no rows`)
  const rng = createRng(context.seed)
  const indices = rows.map((_, i) => i)
  if (!config.disableShuffle) rng.shuffle(indices)
  const requests = asr
    ? await sampleAsr(rows, indices, config, context)
    : family
      ? await sampleFamily(family, rows, indices, config, context)
      : await sampleDetected(rows, indices, config, context)
  if (requests.length === 0) {
    throw new DatasetError(
      `hf: ${config.path} has no usable row (every prompt is empty, under ${MIN_PROMPT_TOKENS} tokens or out of bounds)`,
    )
  }
  return oversample(requests, context.numPrompts, rng, config.noOversample)
}

async function sampleFamily(
  family: HfFamily,
  rows: Row[],
  indices: number[],
  config: HfDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { tokenizer, numPrompts } = context
  const fixed = family.ignoresOutputLen ? undefined : (config.outputLen ?? family.defaultOutputLen)
  const templated =
    family.chatTemplate === true && usesChatTemplate('hf', context, config.skipChatTemplate ?? false)
  const requests: SampleRequest[] = []
  for (const index of indices) {
    if (requests.length >= numPrompts) break
    const row = rows[index]!
    if (family.accepts && !family.accepts(row, config)) continue
    const sample = family.extract(row)
    if (sample === undefined || sample.prompt === '') continue
    const prompt = templated ? renderUserPrompt(sample.prompt, context) : sample.prompt
    const promptLen = (await tokenizer.encode(prompt, { addSpecialTokens: true })).length
    const outputLen =
      fixed ?? (await tokenizer.encode(sample.completion ?? '', { addSpecialTokens: true })).length
    if (outputLen <= 0) continue
    if (fixed === undefined && family.limits && !isValidSequence(promptLen, outputLen, family.limits))
      continue
    const media = family.media?.parts(row)
    requests.push({
      prompt,
      promptLen,
      expectedOutputLen: outputLen,
      ...(media !== undefined && media.length > 0 ? { multiModalContent: media } : {}),
    })
  }
  return requests
}

async function sampleDetected(
  rows: Row[],
  indices: number[],
  config: HfDatasetConfig,
  { tokenizer, numPrompts }: DatasetContext,
): Promise<SampleRequest[]> {
  const layout = detectColumns(rows[0]!, config.textColumn)
  const requests: SampleRequest[] = []
  let warned = false
  for (const index of indices) {
    if (requests.length >= numPrompts) break
    const { prompt, completion } = extractRow(rows[index]!, layout)
    if (prompt.trim() === '') continue
    const promptLen = (await tokenizer.encode(prompt, { addSpecialTokens: true })).length
    if (promptLen < MIN_PROMPT_TOKENS) continue
    let outputLen = config.outputLen
    if (outputLen === undefined && completion !== undefined) {
      outputLen =
        (await tokenizer.encode(completion, { addSpecialTokens: true })).length || HF_FALLBACK_OUTPUT_LEN
    }
    if (outputLen === undefined) {
      if (!warned) {
        warned = true
        console.warn(
          `servebench: hf: ${config.path} has no output column; asking for ${HF_FALLBACK_OUTPUT_LEN} tokens ` +
            '(set --hf-output-len)',
        )
      }
      outputLen = HF_FALLBACK_OUTPUT_LEN
    }
    requests.push({ prompt, promptLen, expectedOutputLen: outputLen })
  }
  return requests
}
