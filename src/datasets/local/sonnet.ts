import { fileURLToPath } from 'node:url'
import { type DatasetFlagContext, needsTokenizer } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { ConfigError, DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { hasChatTemplate, renderUserPrompt, serverAppliesTemplate } from '../chat-prompt.ts'
import { type DatasetContext, type DslFieldTable, defineDataset, flagRow } from '../dataset-module.ts'
import { readDatasetFile } from '../sampling.ts'
import { type CommonOptions, NUM_PROMPTS_FIELD, PATH_FIELD } from '../shared-flags.ts'

/** `--dataset-name sonnet`: a fixed prefix of poem lines plus sampled lines. */
export interface SonnetDatasetConfig {
  kind: 'sonnet'
  /** The text to sample lines from; undefined = the built-in sonnets. */
  path?: string
  inputLen: number
  outputLen: number
  prefixLen: number
}

/** Options of `datasets.sonnet` (`--dataset-name sonnet`). */
export interface SonnetDatasetOptions extends CommonOptions {
  /** A text file of poem lines. @default the built-in Shakespeare sonnets */
  path?: string
  /** Most prompt tokens per request (`--sonnet-input-len`). @default 550 */
  inputLen?: number
  /** Output tokens per request (`--sonnet-output-len`). @default 150 */
  outputLen?: number
  /** Tokens of poem lines shared by every prompt (`--sonnet-prefix-len`). @default 200 */
  prefixLen?: number
}

/** Python's sonnet defaults (the parser of vllm/benchmarks/serve.py). */
export const DEFAULT_SONNET = { inputLen: 550, outputLen: 150, prefixLen: 200 } as const

const SONNET_INPUT_LEN = flagRow('--sonnet-input-len', 'int', 'sonnet: most prompt tokens per request.', {
  default: String(DEFAULT_SONNET.inputLen),
  parity: 'python',
})
const SONNET_OUTPUT_LEN = flagRow('--sonnet-output-len', 'int', 'sonnet: output tokens per request.', {
  default: String(DEFAULT_SONNET.outputLen),
  parity: 'python',
})
const SONNET_PREFIX_LEN = flagRow(
  '--sonnet-prefix-len',
  'int',
  'sonnet: tokens of poem lines shared by every prompt.',
  { default: String(DEFAULT_SONNET.prefixLen), parity: 'python' },
)

/** `--dataset-name sonnet`: a shared prefix of poem lines plus sampled lines. */
export const sonnetDataset = defineDataset<SonnetDatasetConfig, SonnetDatasetOptions>({
  kind: 'sonnet',
  summary: "Shakespeare's sonnets (built in) or any text file",
  datasetName: 'sonnet',
  builder: 'sonnet',
  fields: {
    path: PATH_FIELD,
    numPrompts: NUM_PROMPTS_FIELD,
    inputLen: f(SONNET_INPUT_LEN.name),
    outputLen: f(SONNET_OUTPUT_LEN.name),
    prefixLen: f(SONNET_PREFIX_LEN.name),
  } satisfies DslFieldTable<SonnetDatasetOptions>,
  flags: [SONNET_INPUT_LEN, SONNET_OUTPUT_LEN, SONNET_PREFIX_LEN],
  resolve: resolveSonnet,
  generate: generateSonnet,
})

function resolveSonnet(read: Reader, context: DatasetFlagContext): SonnetDatasetConfig {
  needsTokenizer('sonnet', context)
  const d = DEFAULT_SONNET
  const path = read.string('--dataset-path')
  return {
    kind: 'sonnet',
    ...(path !== undefined ? { path } : {}),
    inputLen: read.int(SONNET_INPUT_LEN.name, 1) ?? d.inputLen,
    outputLen: read.int(SONNET_OUTPUT_LEN.name, 1) ?? d.outputLen,
    prefixLen: read.int(SONNET_PREFIX_LEN.name, 0) ?? d.prefixLen,
  }
}

/** The built-in text: Shakespeare's sonnets (public domain), shipped in the package. */
export const BUILTIN_SONNET_PATH: string = fileURLToPath(
  new URL('../../../fixtures/sonnet.txt', import.meta.url),
)

/** Python's instruction line that starts every sonnet prompt. */
export const SONNET_BASE_PROMPT = 'Pick as many lines as you can from these poem lines:\n'

/**
 * The `sonnet` dataset (Python: `SonnetDataset`; Rust: datasets/sonnet.rs). The text is split into lines that
 * keep their `\n`. Every prompt is the base instruction, the first `numPrefixLines` lines (shared
 * by all prompts, so a server can cache them), then lines drawn with replacement until about
 * `inputLen` tokens; a prompt longer than `inputLen` is redrawn (at most max(20·n, 1000) draws).
 * Line counts use the mean tokens per line: round((len − base)/mean). `promptLen` counts
 * `encode(prompt)` with special tokens. As in Python, the base offset and every length are
 * counted on the prompt rendered with the tokenizer's chat template, which is also what is sent
 * (the raw prompt to a chat backend). A tokenizer without a template counts and sends raw prompts.
 */
export async function generateSonnet(
  config: SonnetDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { tokenizer, numPrompts } = context
  const path = config.path ?? BUILTIN_SONNET_PATH
  const lines = splitLines(await readDatasetFile('sonnet', path))
  if (lines.length === 0) throw new DatasetError(`sonnet: ${path} has no lines`)
  let total = 0
  for (const line of lines) total += (await tokenizer.encode(line)).length
  const avgLen = total / lines.length
  // Python counts every length on the templated prompt, and sends it templated except to a chat
  // backend, whose server applies the same template to the raw message.
  const templated = hasChatTemplate('sonnet', context, '')
  const format = (prompt: string): string => (templated ? renderUserPrompt(prompt, context) : prompt)
  const sendFormatted = templated && !serverAppliesTemplate(context.backend)
  const baseOffset = (await tokenizer.encode(format(SONNET_BASE_PROMPT), { addSpecialTokens: true })).length
  if (config.inputLen <= baseOffset) {
    throw new ConfigError([
      {
        path: '--sonnet-input-len',
        message: `must be more than the ${baseOffset} tokens of the base prompt (got ${config.inputLen})`,
      },
    ])
  }
  const numPrefixLines = Math.min(
    lines.length,
    Math.max(0, Math.round((config.prefixLen - baseOffset) / avgLen)),
  )
  const numInputLines = Math.max(Math.round((config.inputLen - baseOffset) / avgLen), numPrefixLines)
  const prefix = SONNET_BASE_PROMPT + lines.slice(0, numPrefixLines).join('')

  const rng = createRng(context.seed)
  const requests: SampleRequest[] = []
  const maxAttempts = Math.max(20 * numPrompts, 1000)
  for (let attempt = 0; attempt < maxAttempts && requests.length < numPrompts; attempt++) {
    let prompt = prefix
    for (let j = numPrefixLines; j < numInputLines; j++) prompt += lines[rng.int(0, lines.length - 1)]!
    const formatted = format(prompt)
    const promptLen = (await tokenizer.encode(formatted, { addSpecialTokens: true })).length
    if (promptLen <= config.inputLen)
      requests.push({
        prompt: sendFormatted ? formatted : prompt,
        promptLen,
        expectedOutputLen: config.outputLen,
      })
  }
  if (requests.length < numPrompts) {
    throw new DatasetError(
      `sonnet: only ${requests.length} of ${numPrompts} prompts fit in --sonnet-input-len ${config.inputLen} ` +
        `after ${maxAttempts} draws; raise --sonnet-input-len`,
    )
  }
  return requests
}

/** Lines with their trailing `\n` (Python `readlines()`); blank lines are dropped. */
export function splitLines(text: string): string[] {
  return (text.match(/[^\n]*\n|[^\n]+$/g) ?? [])
    .map((line) => (line.endsWith('\n') ? line : `${line}\n`))
    .filter((line) => line.trim() !== '')
}
