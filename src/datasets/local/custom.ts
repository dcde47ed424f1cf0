import { type DatasetFlagContext, requirePath } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { renderUserPrompt, usesChatTemplate } from '../chat-prompt.ts'
import { defineDataset } from '../dataset-module.ts'
import type { TokenizerFreeContext } from '../index.ts'
import { fieldError, oversample, shuffled, typeName } from '../sampling.ts'
import {
  ORDER_FLAGS,
  type OrderConfig,
  type OrderOptions,
  orderedFileFields,
  readOrder,
  SKIP_CHAT_TEMPLATE,
} from '../shared-flags.ts'
import { CUSTOM_OUTPUT_LEN, lineOutputLen, readCustomJsonl, readCustomOutputLen } from './custom-lines.ts'

/** `--dataset-name custom`: JSONL lines with `prompt` and an optional `output_tokens`. */
export interface CustomDatasetConfig extends OrderConfig {
  kind: 'custom'
  path: string
  /** `--custom-output-len`; -1 takes each line's `output_tokens`. */
  outputLen: number
  /** `--skip-chat-template`: send each prompt raw instead of rendered with the tokenizer's chat template. */
  skipChatTemplate: boolean
}

/** Options of `datasets.custom` (`--dataset-name custom`). */
export interface CustomDatasetOptions extends OrderOptions {
  /** A `.jsonl` file of `{"prompt": str, "output_tokens"?: int}` lines (`--dataset-path`). */
  path: string
  /** Output tokens per request; -1 takes each line's `output_tokens` (`--custom-output-len`). @default 256 */
  outputLen?: number
  /** Send prompts without the tokenizer's chat template (`--skip-chat-template`). @default false */
  skipChatTemplate?: boolean
}

/** `--dataset-name custom`: JSONL `{"prompt", "output_tokens"?}` lines. */
export const customDataset = defineDataset<CustomDatasetConfig, CustomDatasetOptions>({
  kind: 'custom',
  summary: 'your JSONL prompts',
  datasetName: 'custom',
  builder: 'custom',
  fields: orderedFileFields<CustomDatasetOptions>({
    outputLen: f(CUSTOM_OUTPUT_LEN.name),
    skipChatTemplate: f(SKIP_CHAT_TEMPLATE.name, 'switch'),
  }),
  flags: [CUSTOM_OUTPUT_LEN, SKIP_CHAT_TEMPLATE, ...ORDER_FLAGS],
  resolve: resolveCustom,
  generate: generateCustom,
})

// custom is the one dataset Python runs with --skip-tokenizer-init (each prompt then counts 1 token).
function resolveCustom(read: Reader, context: DatasetFlagContext): CustomDatasetConfig {
  const path = requirePath(read, 'custom', 'a .jsonl file', context.issues)
  return {
    kind: 'custom',
    path,
    outputLen: readCustomOutputLen(read, context.issues, true),
    skipChatTemplate: read.bool(SKIP_CHAT_TEMPLATE.name),
    ...readOrder(read),
  }
}

const NAME = 'custom'

/**
 * The `custom` dataset (Python: `CustomDataset`; Rust: datasets/custom.rs). Each JSONL line is
 * `{"prompt": str, "output_tokens"?: int}`. Lines are shuffled with the seed (unless
 * `disableShuffle`), the first `numPrompts` are taken and repeated up to `numPrompts` unless
 * `noOversample`. Each prompt is rendered as one user message with the tokenizer's chat template
 * unless `skipChatTemplate`, the backend is a chat backend, or the tokenizer has none
 * (`usesChatTemplate`). `promptLen` counts `encode(prompt)` with special tokens, as Python does;
 * without a tokenizer (`--skip-tokenizer-init`) prompts are sent raw with `promptLen` 1, as Python.
 */
export async function generateCustom(
  config: CustomDatasetConfig,
  context: TokenizerFreeContext,
): Promise<SampleRequest[]> {
  const { path } = config
  const lines = (await readCustomJsonl(NAME, path)).map((row) => {
    const { line, value } = row
    const prompt = value.prompt
    if (prompt === undefined) throw fieldError(NAME, path, line, 'prompt', 'is missing')
    if (typeof prompt !== 'string')
      throw fieldError(NAME, path, line, 'prompt', `must be a string (got ${typeName(prompt)})`)
    return { prompt, outputLen: lineOutputLen(NAME, path, row, config.outputLen) }
  })
  const picked = shuffled(lines, context.seed, config.disableShuffle).slice(0, context.numPrompts)
  const requests: SampleRequest[] = []
  const { tokenizer } = context
  const templated =
    tokenizer !== undefined && usesChatTemplate(NAME, { ...context, tokenizer }, config.skipChatTemplate)
  for (const { prompt: raw, outputLen } of picked) {
    if (tokenizer === undefined) {
      requests.push({ prompt: raw, promptLen: 1, expectedOutputLen: outputLen })
      continue
    }
    const prompt = templated ? renderUserPrompt(raw, { ...context, tokenizer }) : raw
    const promptLen = (await tokenizer.encode(prompt, { addSpecialTokens: true })).length
    requests.push({ prompt, promptLen, expectedOutputLen: outputLen })
  }
  return oversample(requests, context.numPrompts, context.seed, config.noOversample)
}
