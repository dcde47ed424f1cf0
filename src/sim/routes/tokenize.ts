import type { SimContext } from '../context.ts'
import { chatPromptText } from './chat.ts'
import { isTokenIds, SimHttpError } from './http.ts'

/**
 * `POST /tokenize`: `{model?, prompt | messages, add_special_tokens?}` →
 * `{count, max_model_len, tokens, token_strs}`. The tiktoken encodings add no special tokens,
 * so `add_special_tokens` changes nothing.
 */
export function tokenizeResponse(ctx: SimContext, body: Record<string, unknown>): unknown {
  let text: string
  if (typeof body.prompt === 'string') text = body.prompt
  else if (body.messages !== undefined) text = chatPromptText(body.messages)
  else throw new SimHttpError(400, 'prompt: Field required (a string), or messages', 'prompt')
  const tokens = ctx.options.tokenizer.encode(text)
  return { count: tokens.length, max_model_len: ctx.options.maxModelLen, tokens, token_strs: null }
}

/** `POST /detokenize`: `{model?, tokens}` → `{prompt}`. */
export function detokenizeResponse(ctx: SimContext, body: Record<string, unknown>): unknown {
  const tokens = body.tokens
  if (!isTokenIds(tokens) && !(Array.isArray(tokens) && tokens.length === 0)) {
    throw new SimHttpError(400, 'tokens must be a list of token ids', 'tokens')
  }
  try {
    return { prompt: ctx.options.tokenizer.decode(tokens) }
  } catch (error) {
    throw new SimHttpError(400, `tokens could not be decoded: ${(error as Error).message}`, 'tokens')
  }
}
