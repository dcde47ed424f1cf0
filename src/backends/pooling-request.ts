import { request } from 'undici'
import type { BackendName } from '../config/bench-config.ts'
import type { RequestOutput } from '../config/records.ts'
import { withFields } from '../with-fields.ts'
import type { HttpClient } from './http.ts'
import { headerText } from './request-errors.ts'
import { vllmResponseHeaders } from './server-details.ts'
import {
  buildHeaders,
  createAbort,
  describeFailure,
  httpErrorText,
  pendingOutput,
  postOptions,
  readErrorBody,
} from './stream-request.ts'
import type { Backend, BackendRequest } from './types.ts'

/**
 * A pooling backend (`task: 'pooling'`): sends `buildBody(request)` with {@link sendPoolingRequest},
 * counting the inputs it carried with `countInputs` (by default the batch size, 1 without a batch).
 */
export function createPoolingBackend(
  name: BackendName,
  defaultEndpointPath: string,
  buildBody: (request: BackendRequest) => Record<string, unknown>,
  countInputs: (request: BackendRequest, body: Record<string, unknown>) => number = batchSize,
): Backend {
  return {
    name,
    defaultEndpointPath,
    task: 'pooling',
    send(request: BackendRequest, client: HttpClient): Promise<RequestOutput> {
      const body = buildBody(request)
      return sendPoolingRequest(request, client, body, countInputs(request, body))
    },
  }
}

/**
 * Sends one non-streamed pooling request (embeddings, pooling, rerank) and times it.
 *
 * Timing (Rust: the pooling backends in backends/pooling.rs): latency and TTFT are both the time
 * to the response headers, taken before the body is read, so a large embedding body does not count
 * as server time. The body is read afterwards for `usage.prompt_tokens`, which replaces the
 * dataset's prompt length. `numInputSequences` is how many inputs the request carried.
 */
export async function sendPoolingRequest(
  req: BackendRequest,
  client: HttpClient,
  body: Record<string, unknown>,
  numInputSequences: number,
): Promise<RequestOutput> {
  const output: RequestOutput = withFields(pendingOutput(req), { numInputSequences })
  const abort = createAbort(req)
  const options = postOptions(req, client, buildHeaders(req), JSON.stringify(body), abort)
  const startMs = performance.now()
  output.startTimeS = startMs / 1000
  try {
    let response: Awaited<ReturnType<typeof request>>
    try {
      response = await request(req.url, options)
    } catch (error) {
      output.error = `Request failed: ${describeFailure(error, req, abort?.reason)}`
      return output
    }
    const elapsedS = (performance.now() - startMs) / 1000
    abort?.headersArrived()
    if (response.statusCode < 200 || response.statusCode > 299) {
      output.error = httpErrorText(
        response.statusCode,
        await readErrorBody(response.body),
        headerText(response.headers['content-type']),
      )
      return output
    }
    output.ttftS = elapsedS
    output.latencyS = elapsedS
    const metadata = vllmResponseHeaders(response.headers)
    if (metadata !== undefined) output.responseMetadata = metadata
    const encoding = body.encoding_format
    let answer: string
    try {
      // A binary embedding body (`bytes`, `bytes_only`) is read to its end and dropped.
      if (encoding === 'bytes' || encoding === 'bytes_only') {
        for await (const _chunk of response.body) {
          // Read, not kept.
        }
        answer = ''
      } else {
        answer = await response.body.text()
      }
    } catch (error) {
      output.error = `Stream error: ${describeFailure(error, req, abort?.reason)}`
      return output
    }
    output.success = true
    // Python `_run_pooling_request`: `bytes` carries its usage in the JSON `metadata` header;
    // `bytes_only` carries none, so the dataset's prompt length stays.
    const promptTokens =
      encoding === 'bytes'
        ? usagePromptTokens(headerText(response.headers.metadata))
        : encoding === 'bytes_only'
          ? undefined
          : usagePromptTokens(answer)
    if (promptTokens !== undefined) output.promptLen = promptTokens
    return output
  } finally {
    abort?.dispose()
  }
}

/** `usage.prompt_tokens` of a JSON text; undefined when it is not JSON or has none. */
function usagePromptTokens(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  try {
    const usage = (JSON.parse(text) as { usage?: { prompt_tokens?: unknown } } | null)?.usage
    return typeof usage?.prompt_tokens === 'number' ? usage.prompt_tokens : undefined
  } catch {
    return undefined
  }
}

/** Python `_update_payload_common`: `ignore_eos` only when set, then `extraBody`, which wins. */
export function mergeCommon(body: Record<string, unknown>, req: BackendRequest): Record<string, unknown> {
  if (req.ignoreEos) body.ignore_eos = true
  return Object.assign(body, req.extraBody)
}

/** What a pooling request embeds: the batch when there is one, else the token ids or the text. */
export function poolingInput(req: BackendRequest): string | string[] | number[] {
  return req.promptList ?? req.prompt
}

function batchSize(request: BackendRequest): number {
  return request.promptList?.length ?? 1
}
