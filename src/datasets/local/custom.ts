import type { CustomDatasetConfig } from '../../config/bench-config.ts'
import type { SampleRequest } from '../../config/records.ts'
import { renderUserPrompt, usesChatTemplate } from '../chat-prompt.ts'
import type { TokenizerFreeContext } from '../index.ts'
import { fieldError, oversample, shuffled, typeName } from '../sampling.ts'
import { lineOutputLen, readCustomJsonl } from './custom-lines.ts'

const NAME = 'custom'

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
