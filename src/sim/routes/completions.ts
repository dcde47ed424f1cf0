import type { SimContext } from '../context.ts'
import type { GenerationRequest } from '../generation.ts'
import { readGenerationFields } from './generation-body.ts'
import { isTokenIds, SimHttpError } from './http.ts'

/**
 * `POST /v1/completions`: `prompt` is a string, a list of strings, a token-id list or a list of
 * token-id lists; a list runs as one choice per prompt (choice `index` = position), as vLLM does.
 */
export function parseCompletionsRequest(ctx: SimContext, body: Record<string, unknown>): GenerationRequest {
  const prompt = body.prompt
  const { tokenizer } = ctx.options
  const fromText = (text: string) => {
    const tokenIds = tokenizer.encode(text)
    return { promptTokens: tokenIds.length, seedKey: text, tokenIds }
  }
  const fromIds = (ids: number[]) => ({ promptTokens: ids.length, seedKey: ids.join(','), tokenIds: ids })
  let prompts: { promptTokens: number; seedKey: string; tokenIds: number[] }[]
  if (typeof prompt === 'string') prompts = [fromText(prompt)]
  else if (isTokenIds(prompt)) prompts = [fromIds(prompt)]
  else if (Array.isArray(prompt) && prompt.length > 0 && prompt.every((p) => typeof p === 'string')) {
    prompts = (prompt as string[]).map(fromText)
  } else if (Array.isArray(prompt) && prompt.length > 0 && prompt.every(isTokenIds)) {
    prompts = (prompt as number[][]).map(fromIds)
  } else if (prompt === undefined || prompt === null) {
    throw new SimHttpError(400, 'prompt: Field required', 'prompt')
  } else {
    throw new SimHttpError(
      400,
      'prompt must be a string, a list of strings, a list of token ids or a list of token-id lists',
      'prompt',
    )
  }
  return readGenerationFields(ctx, body, 'completions', prompts)
}
