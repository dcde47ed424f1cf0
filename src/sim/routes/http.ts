import type { IncomingMessage, ServerResponse } from 'node:http'

/** A request the simulator refuses, answered with vLLM's error body. */
export class SimHttpError extends Error {
  readonly status: number
  readonly param: string | null
  constructor(status: number, message: string, param: string | null = null) {
    super(message)
    this.status = status
    this.param = param
  }
}

const ERROR_TYPES: Record<number, string> = {
  400: 'BadRequestError',
  404: 'NotFoundError',
  500: 'InternalServerError',
}

/** `{"error":{"message","type","param","code"}}`, vLLM's `ErrorResponse`. */
export function sendError(res: ServerResponse, error: SimHttpError): void {
  sendJson(res, error.status, {
    error: {
      message: error.message,
      type: ERROR_TYPES[error.status] ?? 'Error',
      param: error.param,
      code: error.status,
    },
  })
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** Reads the whole body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

/** Parses a JSON object body; anything else is a 400 like vLLM's validation error. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new SimHttpError(400, `Invalid JSON body: ${(error as Error).message}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SimHttpError(400, 'Request body must be a JSON object')
  }
  return value as Record<string, unknown>
}

/** An optional boolean field. */
export function optionalBoolean(body: Record<string, unknown>, key: string): boolean | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'boolean') throw new SimHttpError(400, `${key} must be a boolean`, key)
  return value
}

/** An optional integer field with a lower bound. */
export function optionalInteger(body: Record<string, unknown>, key: string, min: number): number | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new SimHttpError(400, `${key} must be an integer`, key)
  }
  if (value < min) throw new SimHttpError(400, `${key} must be at least ${min}, got ${value}.`, key)
  return value
}

/** True for a non-empty array of integers: a token-id prompt. */
export function isTokenIds(value: unknown): value is number[] {
  return Array.isArray(value) && value.length > 0 && value.every((v) => Number.isInteger(v))
}
