import type { SimContext } from '../context.ts'
import type { GenerationRequest } from '../generation.ts'
import { readGenerationFields } from './generation-body.ts'
import { SimHttpError } from './http.ts'

/**
 * `POST /v1/chat/completions`. Prompt tokens are the tokens of every message's text joined by
 * newlines; no chat template is applied, so the count is what the client's own tokenizer gives.
 */
export function parseChatRequest(ctx: SimContext, body: Record<string, unknown>): GenerationRequest {
  const text = chatPromptText(body.messages)
  const tokenIds = ctx.options.tokenizer.encode(text)
  const prompts = [{ promptTokens: tokenIds.length, seedKey: text, tokenIds }]
  return readGenerationFields(ctx, body, 'chat', prompts)
}

/** The text of a `messages` list: string contents and the `text` of text parts; other parts are skipped. */
export function chatPromptText(messages: unknown): string {
  if (messages === undefined || messages === null)
    throw new SimHttpError(400, 'messages: Field required', 'messages')
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new SimHttpError(400, 'messages must be a non-empty list of messages', 'messages')
  }
  const texts: string[] = []
  for (const [i, message] of messages.entries()) {
    if (typeof message !== 'object' || message === null || typeof message.role !== 'string') {
      throw new SimHttpError(400, `messages[${i}] must be an object with a string role`, 'messages')
    }
    const content: unknown = message.content
    if (typeof content === 'string') texts.push(content)
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (
          typeof part === 'object' &&
          part !== null &&
          part.type === 'text' &&
          typeof part.text === 'string'
        ) {
          texts.push(part.text)
        }
      }
    } else if (content !== undefined && content !== null) {
      throw new SimHttpError(400, `messages[${i}].content must be a string or a list of parts`, 'messages')
    }
  }
  return texts.join('\n')
}
