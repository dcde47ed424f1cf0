import { request } from 'undici'
import type { BackendName } from '../config/bench-config.ts'
import type { RequestOutput } from '../config/records.ts'
import { type ResponseBody, ResponseTooLargeError } from '../response-body.ts'
import { withFields } from '../with-fields.ts'
import type { HttpClient } from './http.ts'
import { JsonScan, type JsonScanResult } from './json-scan.ts'
import { headerText, isTimeout } from './request-errors.ts'
import { vllmResponseHeaders } from './server-details.ts'
import { currentStreamLimits, responseTooLargeMessage } from './stream-limits.ts'
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
import { readUsageCount } from './usage-counts.ts'

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
 *
 * The answer must be what Python's `response.json()` accepts: a JSON content type, no content
 * encoding servebench did not ask for, and a body that parses, read up to
 * `SERVEBENCH_MAX_RESPONSE_BYTES`; anything else fails the request with the reason in `errors`.
 * A failure before the body (a refused connection, a 429 or 5xx) is told to `onEarlyFailure`,
 * so `--max-retries` retries it as it does a streamed request.
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
      req.onEarlyFailure?.({ kind: 'connect', timedOut: abort?.reason() !== undefined || isTimeout(error) })
      return output
    }
    const elapsedS = (performance.now() - startMs) / 1000
    abort?.headersArrived()
    const { statusCode, headers } = response
    if (statusCode < 200 || statusCode > 299) {
      output.error = httpErrorText(
        statusCode,
        await readErrorBody(response.body),
        headerText(headers['content-type']),
      )
      const retryAfter = headerText(headers['retry-after'])
      req.onEarlyFailure?.({ kind: 'status', status: statusCode, ...(retryAfter ? { retryAfter } : {}) })
      return output
    }
    output.ttftS = elapsedS
    output.latencyS = elapsedS
    const metadata = vllmResponseHeaders(headers)
    if (metadata !== undefined) output.responseMetadata = metadata
    const encoding = body.encoding_format
    const binary = encoding === 'bytes' || encoding === 'bytes_only'
    const refused = refuseAnswer(statusCode, headers, binary)
    if (refused !== undefined) {
      dropBody(response.body)
      output.error = refused
      return output
    }
    let promptTokensValue: unknown
    try {
      const limitBytes = currentStreamLimits().maxResponseBytes
      // A binary embedding body (`bytes`, `bytes_only`) is read to its end and dropped; a JSON one
      // is checked as it arrives and dropped too (json-scan.ts): only its usage is kept.
      const scanned = await scanCapped(response.body, limitBytes, binary, headers['content-length'])
      if (!scanned.valid) {
        output.error = `Response error: the body is not valid JSON (${scanned.error})`
        return output
      }
      promptTokensValue = scanned.promptTokens
    } catch (error) {
      output.error =
        error instanceof ResponseTooLargeError
          ? responseTooLargeMessage(error.limitBytes)
          : `Stream error: ${describeFailure(error, req, abort?.reason)}`
      return output
    }
    // Python `_run_pooling_request`: `bytes` carries its usage in the JSON `metadata` header;
    // `bytes_only` carries none, so the dataset's prompt length stays.
    const promptTokens = readUsageCount(
      'prompt_tokens',
      encoding === 'bytes'
        ? usageOf(parseJsonHeader(headerText(headers.metadata)))?.prompt_tokens
        : promptTokensValue,
    )
    if (promptTokens.kind === 'impossible') {
      output.error = promptTokens.error
      return output
    }
    if (promptTokens.kind === 'count') output.promptLen = promptTokens.value
    output.success = true
    return output
  } finally {
    abort?.dispose()
  }
}

/**
 * Why a 2xx answer cannot be read as `response.json()` would, or undefined: a content encoding
 * servebench did not ask for (a gzip bomb is never inflated), or a JSON answer of another type.
 */
function refuseAnswer(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  binary: boolean,
): string | undefined {
  const encoding = headerText(headers['content-encoding'])
  const type = headerText(headers['content-type'])
  if (encoding !== undefined && encoding !== '' && encoding.toLowerCase() !== 'identity') {
    return `Response error: HTTP ${status} with content-encoding ${encoding}, which servebench did not ask for and does not decode`
  }
  if (binary) return undefined
  const mime = type?.split(';')[0]?.trim().toLowerCase()
  if (mime === undefined || mime === '' || !/^[^/]+\/([^/]+\+)?json$/.test(mime)) {
    return `Response error: HTTP ${status} (${type ?? 'no content-type'}) where a JSON answer was expected`
  }
  return undefined
}

/**
 * Reads a body to its end without keeping it, checking a JSON one as it comes; more than
 * `limitBytes` (or a `content-length` that says so) is a {@link ResponseTooLargeError}.
 */
async function scanCapped(
  body: ResponseBody,
  limitBytes: number,
  binary: boolean,
  contentLength: string | string[] | undefined,
): Promise<JsonScanResult> {
  const declared = Number(contentLength)
  if (Number.isFinite(declared) && declared > limitBytes) {
    dropBody(body)
    throw new ResponseTooLargeError('the server', limitBytes)
  }
  const scan = binary ? undefined : new JsonScan()
  let bytes = 0
  for await (const chunk of body) {
    bytes += chunk.byteLength
    // Leaving the loop destroys the body through its iterator: the rest is never read.
    if (bytes > limitBytes) throw new ResponseTooLargeError('the server', limitBytes)
    scan?.push(chunk)
  }
  return scan ? scan.finish() : { valid: true }
}

/** Drops a body that will not be read: its connection is closed rather than drained. */
function dropBody(body: ResponseBody & { on?(event: 'error', listener: () => void): unknown }): void {
  body.on?.('error', () => {})
  body.destroy()
}

/** The `usage` object of a parsed `metadata` header, if it has one. */
function usageOf(value: unknown): { prompt_tokens?: unknown } | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const usage = (value as { usage?: unknown }).usage
  return typeof usage === 'object' && usage !== null ? usage : undefined
}

/** A JSON header value (the `metadata` of a `bytes` answer); undefined when absent or not JSON. */
function parseJsonHeader(text: string | undefined): unknown {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text)
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
