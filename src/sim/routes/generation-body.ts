import type { SimContext } from '../context.ts'
import type { GenerationRequest } from '../generation.ts'
import { optionalBoolean, optionalInteger, SimHttpError } from './http.ts'

/**
 * The sampling fields completions and chat share: max tokens (checked against the context
 * window as vLLM does), n, ignore_eos, stream and stream_options.
 */
export function readGenerationFields(
  ctx: SimContext,
  body: Record<string, unknown>,
  api: GenerationRequest['api'],
  prompts: { promptTokens: number; seedKey: string; tokenIds?: number[] }[],
): GenerationRequest {
  const maxKey = api === 'chat' && body.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens'
  const requested = optionalInteger(body, maxKey, 1)
  const n = optionalInteger(body, 'n', 1) ?? 1
  const stream = optionalBoolean(body, 'stream') ?? false
  const streamOptions = body.stream_options
  if (streamOptions !== undefined && streamOptions !== null) {
    if (!stream)
      throw new SimHttpError(400, 'Stream options can only be defined when `stream=True`.', 'stream_options')
    if (typeof streamOptions !== 'object' || Array.isArray(streamOptions)) {
      throw new SimHttpError(400, 'stream_options must be an object', 'stream_options')
    }
  }
  const includeUsage =
    optionalBoolean((streamOptions ?? {}) as Record<string, unknown>, 'include_usage') ?? false
  const { maxModelLen } = ctx.options
  const longest = Math.max(...prompts.map((p) => p.promptTokens))
  if (longest >= maxModelLen) {
    throw new SimHttpError(
      400,
      `This model's maximum context length is ${maxModelLen} tokens. However, your request has ${longest} input tokens. Please reduce the length of the input messages.`,
    )
  }
  if (requested !== undefined && longest + requested > maxModelLen) {
    throw new SimHttpError(
      400,
      `'${maxKey}' is too large: ${requested}. This model's maximum context length is ${maxModelLen} tokens and your request has ${longest} input tokens (${requested} > ${maxModelLen} - ${longest}).`,
      maxKey,
    )
  }
  const model = typeof body.model === 'string' && body.model !== '' ? body.model : ctx.options.model
  ctx.counters.requestsByModel[model] = (ctx.counters.requestsByModel[model] ?? 0) + 1
  const choices = prompts.flatMap((p) =>
    Array.from({ length: n }, (_, i) => ({
      promptTokens: p.promptTokens,
      tokenIds: p.tokenIds,
      seedKey: `${i}\u0000${p.seedKey}`,
      // n > 1 samples one prompt n times; vLLM counts its tokens once.
      countsPrompt: i === 0,
    })),
  )
  return {
    api,
    model,
    choices,
    maxTokens: requested ?? maxModelLen - longest,
    ignoreEos: optionalBoolean(body, 'ignore_eos') ?? false,
    stream,
    includeUsage,
  }
}
