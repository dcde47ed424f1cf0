import type { CustomDatasetConfig } from '../config/bench-config.ts'
import type { SampleRequest } from '../config/records.ts'
import { DatasetError } from '../errors.ts'
import { renderUserPrompt, usesChatTemplate } from './chat-prompt.ts'
import type { TokenizerFreeContext } from './index.ts'
import { fieldError, oversample, parseJsonl, readDatasetFile, shuffled, typeName } from './sampling.ts'

const NAME = 'custom'

/** `--custom-output-len -1`: take each line's `output_tokens`. */
export const PER_LINE_OUTPUT_LEN = -1

/**
 * The `custom` dataset (Python: `CustomDataset`; Rust §4.7). Each JSONL line is
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
  if (!path.endsWith('.jsonl'))
    throw new DatasetError(`${NAME}: --dataset-path must be a .jsonl file (got ${path})`)
  const rows = parseJsonl(NAME, path, await readDatasetFile(NAME, path))
  const perLine = config.outputLen === PER_LINE_OUTPUT_LEN
  const lines = rows.map(({ line, value }) => {
    const prompt = value.prompt
    if (prompt === undefined) throw fieldError(NAME, path, line, 'prompt', 'is missing')
    if (typeof prompt !== 'string')
      throw fieldError(NAME, path, line, 'prompt', `must be a string (got ${typeName(prompt)})`)
    const tokens = value.output_tokens
    if (tokens !== undefined && !(Number.isInteger(tokens) && (tokens as number) >= 1)) {
      throw fieldError(
        NAME,
        path,
        line,
        'output_tokens',
        `must be an integer of at least 1 (got ${JSON.stringify(tokens)})`,
      )
    }
    if (perLine && tokens === undefined) {
      throw fieldError(NAME, path, line, 'output_tokens', 'is missing (needed by --custom-output-len -1)')
    }
    return { prompt, outputLen: perLine ? (tokens as number) : config.outputLen }
  })
  if (lines.length === 0) throw new DatasetError(`${NAME}: ${path} has no lines`)
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
