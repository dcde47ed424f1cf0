import type { HfDatasetConfig } from '../../config/bench-config.ts'
import type { SampleRequest } from '../../config/records.ts'
import { DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { renderUserPrompt, usesChatTemplate } from '../chat-prompt.ts'
import type { DatasetContext } from '../index.ts'
import { isAsrDataset, sampleAsr } from './hf-audio-families.ts'
import { BFCL_ID, generateBfcl } from './hf-bfcl.ts'
import { detectColumns, extractRow, type Row } from './hf-columns.ts'
import { findFamily, type HfFamily } from './hf-families.ts'
import { requireChatBackend } from './hf-image-families.ts'
import { generateMlperf, MLPERF_IDS } from './hf-mlperf.ts'
import { loadHfRows } from './hf-source.ts'
import { isValidSequence, oversample } from './hub-sampling.ts'

/** Output length when a row has no reference completion and `--hf-output-len` is not given (Rust). */
export const HF_FALLBACK_OUTPUT_LEN = 128
const MIN_PROMPT_TOKENS = 4

/**
 * The `hf` dataset. A Python family (`findFamily`) reads its rows the way Python does, with its
 * default output length and validity limits; any other dataset is read with Rust's column
 * auto-detection (§4.6). Rows are shuffled with `seed` unless `disableShuffle`; lengths count
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
  const rows = await loadHfRows({
    dataset: config.path,
    ...(config.subset !== undefined ? { subset: config.subset } : {}),
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
