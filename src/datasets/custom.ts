import type { CustomDatasetConfig } from '../config/bench-config.ts'
import type { SampleRequest } from '../config/records.ts'
import { DatasetError } from '../errors.ts'
import type { DatasetContext } from './index.ts'
import { fieldError, oversample, parseJsonl, readDatasetFile, shuffled, typeName } from './sampling.ts'

const NAME = 'custom'

/** `--custom-output-len -1`: take each line's `output_tokens`. */
export const PER_LINE_OUTPUT_LEN = -1

let warnedTemplate = false

/**
 * The `custom` dataset (Python: `CustomDataset`; Rust §4.7). Each JSONL line is
 * `{"prompt": str, "output_tokens"?: int}`. Lines are shuffled with the seed (unless
 * `disableShuffle`), the first `numPrompts` are taken and repeated up to `numPrompts` unless
 * `noOversample`. `promptLen` counts `encode(prompt)` with special tokens, as Python does.
 * Deviation: no client-side chat template is applied (as in Rust); the chat backend's server
 * applies its own. A note says so once unless `skipChatTemplate`.
 */
export async function generateCustom(
  config: CustomDatasetConfig,
  context: DatasetContext,
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
  if (!config.skipChatTemplate && !warnedTemplate) {
    warnedTemplate = true
    console.warn(
      'servebench: custom prompts are sent without a client-side chat template ' +
        '(--skip-chat-template silences this note)',
    )
  }

  const picked = shuffled(lines, context.seed, config.disableShuffle).slice(0, context.numPrompts)
  const requests: SampleRequest[] = []
  for (const { prompt, outputLen } of picked) {
    const promptLen = (await context.tokenizer.encode(prompt, { addSpecialTokens: true })).length
    requests.push({ prompt, promptLen, expectedOutputLen: outputLen })
  }
  return oversample(requests, context.numPrompts, context.seed, config.noOversample)
}
