/**
 * Flag resolvers of the Hugging Face datasets: sharegpt and hf. `resolvers.ts` registers
 * them by name.
 */

import type { HfDatasetConfig, ShareGptDatasetConfig } from '../config/bench-config.ts'
import {
  type DatasetFlagContext,
  type DatasetFlagResolver,
  needsTokenizer,
} from '../config/dataset-flag-checks.ts'
import type { Reader } from '../config/resolve.ts'
import type { ConfigIssue } from '../errors.ts'
import { readAsrFlags } from './hub/hf-audio-families.ts'
import { BFCL_ID } from './hub/hf-bfcl.ts'

/** Why these datasets need a tokenizer, as their `--skip-tokenizer-init` issue says it. */
const TO_COUNT = 'it needs a tokenizer to count prompt tokens'

/** `--dataset-name` → resolver. */
export const HUB_DATASET_RESOLVERS = {
  sharegpt: resolveShareGpt,
  hf: resolveHf,
} as const satisfies Record<string, DatasetFlagResolver>

function resolveShareGpt(read: Reader, context: DatasetFlagContext): ShareGptDatasetConfig {
  needsTokenizer('sharegpt', context, TO_COUNT)
  const dataset: ShareGptDatasetConfig = {
    kind: 'sharegpt',
    disableShuffle: read.bool('--disable-shuffle'),
    noOversample: read.bool('--no-oversample'),
  }
  const path = read.string('--dataset-path')
  if (path !== undefined) dataset.path = path
  const outputLen = read.int('--sharegpt-output-len', 1)
  if (outputLen !== undefined) dataset.outputLen = outputLen
  return dataset
}

function resolveHf(read: Reader, context: DatasetFlagContext): HfDatasetConfig {
  needsTokenizer('hf', context, TO_COUNT)
  const path = read.string('--dataset-path')
  const hfName = read.string('--hf-name')
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
    disableShuffle: read.bool('--disable-shuffle'),
    noOversample: read.bool('--no-oversample'),
  }
  if (hfName !== undefined) dataset.hfName = hfName
  const subset = read.string('--hf-subset')
  if (subset !== undefined) dataset.subset = subset
  const split = read.string('--hf-split')
  if (split !== undefined) dataset.split = split
  const outputLen = read.int('--hf-output-len', 1)
  if (outputLen !== undefined) dataset.outputLen = outputLen
  const textColumn = read.string('--hf-text-column')
  if (textColumn !== undefined) dataset.textColumn = textColumn
  if (read.bool('--skip-chat-template')) dataset.skipChatTemplate = true
  const asr = readAsrFlags(read, hfName ?? path, context)
  if (asr !== undefined) dataset.asrAudioLenS = asr
  const distance = readBlazeditDistance(read, context.issues)
  if (distance !== undefined) dataset.blazeditDistance = distance
  const categories = read.string('--bfcl-categories')
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

/** `--bfcl-categories a,b`: the names, trimmed, empty ones dropped (Python). */
export function parseBfclCategories(value: string): string[] {
  return value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '')
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
  const min = inRange('--blazedit-min-distance')
  const max = inRange('--blazedit-max-distance')
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
