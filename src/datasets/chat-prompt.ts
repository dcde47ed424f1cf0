import type { BackendName } from '../config/bench-config.ts'
import { ConfigError } from '../errors.ts'
import { applyChatTemplate } from '../tokenizer/chat-template.ts'
import type { Tokenizer } from '../tokenizer/index.ts'

/** Backends that send messages (or a chat input) and leave the chat template to the server. */
export const SERVER_TEMPLATED_BACKENDS: readonly BackendName[] = [
  'openai-chat',
  'openai-responses',
  'openai-embeddings-chat',
  'openai-embeddings-clip',
  'openai-embeddings-vlm2vec',
]

/** What the datasets that template prompts need to know (a subset of `DatasetContext`). */
export interface ChatPromptContext {
  tokenizer: Tokenizer
  /** The run's backend; the server templates for the chat backends. undefined = a completions backend. */
  backend?: BackendName
  /** `--chat-template-kwargs`, passed to the template. */
  chatTemplateKwargs?: Record<string, unknown>
}

const warned = new Set<string>()

/**
 * Whether a dataset renders its prompts with the tokenizer's chat template before sending them,
 * as Python's custom, InstructCoder, MT-Bench and Blazedit loaders do: not with `skip`
 * (`--skip-chat-template`), not for a chat backend (its server applies the template to the
 * message), and not when the tokenizer has none (`hasChatTemplate`).
 */
export function usesChatTemplate(dataset: string, context: ChatPromptContext, skip: boolean): boolean {
  return !skip && !serverAppliesTemplate(context.backend) && hasChatTemplate(dataset, context)
}

/** True for the backends whose server applies the chat template (`SERVER_TEMPLATED_BACKENDS`). */
export function serverAppliesTemplate(backend: BackendName | undefined): boolean {
  return backend !== undefined && SERVER_TEMPLATED_BACKENDS.includes(backend)
}

/**
 * Whether the tokenizer has a chat template. Deviation: Python fails on a tokenizer without
 * one; servebench goes on without the template and says so once per dataset, naming what
 * silences the note (`silencer`, empty when nothing does).
 */
export function hasChatTemplate(
  dataset: string,
  context: ChatPromptContext,
  silencer = ' (--skip-chat-template silences this note)',
): boolean {
  if (context.tokenizer.chatTemplate !== undefined) return true
  // Named options for a template that does not exist would be dropped without a word.
  if (context.chatTemplateKwargs && Object.keys(context.chatTemplateKwargs).length > 0) {
    throw new ConfigError([
      {
        path: '--chat-template-kwargs',
        message: `is given, but the tokenizer "${context.tokenizer.id}" has no chat template to pass it to (${dataset} prompts would be sent without one); name a tokenizer with a chat template, or drop the flag`,
      },
    ])
  }
  if (!warned.has(dataset)) {
    warned.add(dataset)
    console.warn(
      `servebench: ${dataset}: the tokenizer "${context.tokenizer.id}" has no chat template, so prompts ` +
        `are sent without one${silencer}`,
    )
  }
  return false
}

/** `prompt` as one user message rendered with the generation prompt (Python `apply_chat_template`). */
export function renderUserPrompt(prompt: string, context: ChatPromptContext): string {
  return applyChatTemplate(context.tokenizer, [{ role: 'user', content: prompt }], {
    ...context.chatTemplateKwargs,
    addGenerationPrompt: true,
  })
}
