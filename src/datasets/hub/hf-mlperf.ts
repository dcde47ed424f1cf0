import type { ChatMessage, SampleRequest } from '../../config/records.ts'
import { DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { applyChatTemplate } from '../../tokenizer/chat-template.ts'
import { hasChatTemplate, serverAppliesTemplate } from '../chat-prompt.ts'
import type { DatasetContext } from '../index.ts'
import type { HfDatasetConfig } from './hf.ts'
import type { Row } from './hf-columns.ts'
import { loadHfRows } from './hf-source.ts'
import { isValidSequence, oversample } from './hub-sampling.ts'

/** The MLPerf Inference sets of `hf` (Python `MLPerfDataset`). */
export const MLPERF_IDS: readonly string[] = [
  'mgoin/mlperf-inference-llama2-data',
  'mgoin/mlperf-inference-llama3.1-data',
]

const COLUMNS = ['system_prompt', 'question', 'output'] as const

/**
 * The MLPerf family of `hf` (Python `MLPerfDataset`): each row's `system_prompt` and `question`
 * become a system and a user message. A completions backend gets them rendered with the
 * tokenizer's chat template (with the generation prompt); the chat backends send the two messages
 * and leave the template to the server. `promptLen` counts the rendered prompt with special
 * tokens. The output length is `--hf-output-len`, else the token count of the reference `output`
 * (without special tokens). As in Python, every row goes through `is_valid_sequence` (prompt 4 to
 * 1024 tokens, output at least 4, both at most 2048), a fixed output length included.
 * Deviations: `--skip-chat-template`, or a tokenizer without a template (with a note; Python
 * fails), sends `{system_prompt}\n\n{question}` raw.
 */
export async function generateMlperf(
  config: HfDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { tokenizer, numPrompts } = context
  const rows = await loadHfRows({
    dataset: config.path,
    ...(config.subset !== undefined ? { subset: config.subset } : {}),
    split: config.split ?? 'train',
    seed: context.seed,
    disableShuffle: config.disableShuffle,
    minRows: 2 * numPrompts,
  })
  if (rows.length === 0) throw new DatasetError(`hf: ${config.path} has no rows`)
  const rng = createRng(context.seed)
  const indices = rows.map((_, i) => i)
  if (!config.disableShuffle) rng.shuffle(indices)

  const chat = serverAppliesTemplate(context.backend)
  const templated = !(config.skipChatTemplate === true && !chat) && hasChatTemplate('hf', context)
  const requests: SampleRequest[] = []
  for (const index of indices) {
    if (requests.length >= numPrompts) break
    const { system_prompt: system, question, output } = columnsOf(rows[index]!, config.path)
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: question },
    ]
    const rendered = templated
      ? applyChatTemplate(tokenizer, messages as Array<{ role: string; content: string }>, {
          ...context.chatTemplateKwargs,
          addGenerationPrompt: true,
        })
      : `${system}\n\n${question}`
    const promptLen = (await tokenizer.encode(rendered, { addSpecialTokens: true })).length
    const outputLen = config.outputLen ?? (await tokenizer.encode(output, { addSpecialTokens: false })).length
    if (!isValidSequence(promptLen, outputLen)) continue
    requests.push(
      chat
        ? { prompt: question, promptLen, expectedOutputLen: outputLen, chatMessages: messages }
        : { prompt: rendered, promptLen, expectedOutputLen: outputLen },
    )
  }
  if (requests.length === 0) {
    throw new DatasetError(
      `hf: ${config.path} has no usable row (each prompt needs 4 to 1024 tokens, the output at least 4, both at most 2048)`,
    )
  }
  return oversample(requests, numPrompts, rng, config.noOversample)
}

function columnsOf(row: Row, path: string): Record<(typeof COLUMNS)[number], string> {
  const values = {} as Record<(typeof COLUMNS)[number], string>
  for (const column of COLUMNS) {
    const value = row[column]
    if (typeof value !== 'string') {
      throw new DatasetError(
        `hf: ${path}: an MLPerf row needs the string columns ${COLUMNS.join(', ')}; ` +
          `"${column}" is ${value === undefined ? 'missing' : `a ${value === null ? 'null' : typeof value}`} ` +
          `(the columns are: ${Object.keys(row).join(', ')})`,
      )
    }
    values[column] = value
  }
  return values
}
