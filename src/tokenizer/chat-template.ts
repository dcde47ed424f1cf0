import { Template } from '@huggingface/jinja'
import { TokenizerError } from '../errors.ts'
import type { Tokenizer } from './index.ts'

/** One chat message, as Hugging Face chat templates read it. */
export interface ChatMessage {
  role: string
  content: string
}

/** `apply_chat_template` options; other keys are passed to the template (`--chat-template-kwargs`). */
export interface ApplyChatTemplateOptions {
  /** End with the assistant header so the model answers. @default true */
  addGenerationPrompt?: boolean
  [kwarg: string]: unknown
}

/**
 * The file newer Hugging Face repositories keep their chat template in, next to
 * `tokenizer_config.json`. As in transformers, its text replaces any `chat_template` of the config.
 */
export const CHAT_TEMPLATE_FILE = 'chat_template.jinja'

/** What `tokenizer_config.json` (and `chat_template.jinja`) say about chat templating. */
export interface ChatTemplateConfig {
  /** The Jinja source; undefined when neither the file nor the config has one. */
  template?: string
  /** `bos_token`, `eos_token`, …: the names a template may use, as plain strings. */
  specialTokensMap: Record<string, string>
}

// Python's `special_tokens_map`: the special-token attributes a template can read.
const SPECIAL_TOKEN_KEYS = [
  'bos_token',
  'eos_token',
  'unk_token',
  'sep_token',
  'pad_token',
  'cls_token',
  'mask_token',
] as const

/**
 * Reads `chat_template` (a string, or a list of `{name, template}` of which `default` is used,
 * as transformers does without tools) and the special tokens from a parsed
 * `tokenizer_config.json`. A token given as an AddedToken object counts by its `content`.
 * `fileTemplate`, the text of {@link CHAT_TEMPLATE_FILE}, wins over the config's template, as
 * transformers' `from_pretrained` lets the file clobber it (an empty file included).
 */
export function readChatTemplateConfig(config: unknown, fileTemplate?: string): ChatTemplateConfig {
  const record = (typeof config === 'object' && config !== null ? config : {}) as Record<string, unknown>
  const specialTokensMap: Record<string, string> = {}
  for (const key of SPECIAL_TOKEN_KEYS) {
    const value = record[key]
    const text =
      typeof value === 'string'
        ? value
        : typeof value === 'object' &&
            value !== null &&
            typeof (value as { content?: unknown }).content === 'string'
          ? (value as { content: string }).content
          : undefined
    if (text !== undefined) specialTokensMap[key] = text
  }
  const raw = record.chat_template
  let template: string | undefined
  if (fileTemplate !== undefined) template = fileTemplate
  else if (typeof raw === 'string') template = raw
  else if (Array.isArray(raw)) {
    const named = raw.find((entry) => (entry as { name?: unknown })?.name === 'default') as
      | { template?: unknown }
      | undefined
    if (typeof named?.template === 'string') template = named.template
  }
  return template === undefined ? { specialTokensMap } : { template, specialTokensMap }
}

const compiled = new Map<string, Template>()

/**
 * Renders `messages` with the tokenizer's chat template through `@huggingface/jinja`, as
 * transformers' `apply_chat_template(messages, tokenize=False, …)` does: the template sees
 * `messages`, `add_generation_prompt`, the special tokens, the library's `raise_exception` and
 * `strftime_now`, and every extra option (`enable_thinking`, …). Throws a `TokenizerError` naming the tokenizer
 * when it has no template, or when the template cannot be parsed or raises.
 */
export function applyChatTemplate(
  tokenizer: Pick<Tokenizer, 'id' | 'chatTemplate' | 'specialTokensMap'>,
  messages: readonly ChatMessage[],
  options: ApplyChatTemplateOptions = {},
): string {
  const source = tokenizer.chatTemplate
  if (source === undefined) {
    throw new TokenizerError(
      `The tokenizer "${tokenizer.id}" has no chat template (no ${CHAT_TEMPLATE_FILE}, and no chat_template in its tokenizer_config.json)`,
    )
  }
  let template = compiled.get(source)
  if (template === undefined) {
    try {
      template = new Template(source)
    } catch (error) {
      throw new TokenizerError(
        `The chat template of "${tokenizer.id}" cannot be parsed: ${(error as Error).message}`,
        { cause: error },
      )
    }
    compiled.set(source, template)
  }
  const { addGenerationPrompt = true, ...kwargs } = options
  try {
    return template.render({
      ...tokenizer.specialTokensMap,
      ...kwargs,
      messages: messages.map((m) => ({ ...m })),
      add_generation_prompt: addGenerationPrompt,
    })
  } catch (error) {
    // A template's own raise_exception('…') arrives here with its text as the message.
    throw new TokenizerError(
      `The chat template of "${tokenizer.id}" cannot be rendered: ${(error as Error).message}`,
      {
        cause: error,
      },
    )
  }
}
