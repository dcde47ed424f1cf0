/** Stable error codes. Match on `code`, never `instanceof`: errors cross worker threads as plain objects. */
export type ServebenchErrorCode =
  | 'SERVEBENCH_CONFIG'
  | 'SERVEBENCH_DATASET'
  | 'SERVEBENCH_TOKENIZER'
  | 'SERVEBENCH_ENDPOINT_UNREACHABLE'
  | 'SERVEBENCH_ENDPOINT_NOT_READY'
  | 'SERVEBENCH_BASELINE'
  | 'SERVEBENCH_INTERRUPTED'

/** One problem with user input: where it is (`--num-prompts`, `load.rate`) and what is wrong. */
export interface ConfigIssue {
  path: string
  message: string
}

export class ServebenchError extends Error {
  readonly code: ServebenchErrorCode
  constructor(code: ServebenchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }
}

/** Bad flags, DSL fields or config files. Carries every issue found, not only the first. */
export class ConfigError extends ServebenchError {
  readonly issues: ConfigIssue[]
  constructor(issues: ConfigIssue[], options?: { cause?: unknown }) {
    super('SERVEBENCH_CONFIG', formatIssues(issues), options)
    this.issues = issues
  }
}

export class DatasetError extends ServebenchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SERVEBENCH_DATASET', message, options)
  }
}

export class TokenizerError extends ServebenchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SERVEBENCH_TOKENIZER', message, options)
  }
}

export class EndpointError extends ServebenchError {
  constructor(
    code: 'SERVEBENCH_ENDPOINT_UNREACHABLE' | 'SERVEBENCH_ENDPOINT_NOT_READY',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options)
  }
}

export class BaselineError extends ServebenchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SERVEBENCH_BASELINE', message, options)
  }
}

/** CLI exit codes, documented in docs/errors.md. */
export const EXIT_CODES = {
  ok: 0,
  verdictFailed: 1,
  usage: 2,
  endpoint: 3,
  /** The run finished, but its client was saturated (`--client-check fail`): the latencies measure the client. */
  clientSaturated: 4,
  interrupted: 130,
} as const

/** The exit code for an error thrown out of a run. */
export function exitCodeFor(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'SERVEBENCH_CONFIG' || code === 'SERVEBENCH_DATASET' || code === 'SERVEBENCH_TOKENIZER') {
    return EXIT_CODES.usage
  }
  if (code === 'SERVEBENCH_ENDPOINT_UNREACHABLE' || code === 'SERVEBENCH_ENDPOINT_NOT_READY') {
    return EXIT_CODES.endpoint
  }
  if (code === 'SERVEBENCH_INTERRUPTED') return EXIT_CODES.interrupted
  return EXIT_CODES.verdictFailed
}

/** True for errors caused by user input or the environment: print the message, not a stack. */
export function isUserError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SERVEBENCH_')
}

/** Plain `{ name, code, message, stack }` for posting across threads or writing to JSON. */
export function serializeError(error: unknown): {
  name: string
  code?: string
  message: string
  stack?: string
} {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code
    return {
      name: error.name,
      ...(typeof code === 'string' ? { code } : {}),
      message: error.message,
      ...(error.stack ? { stack: error.stack } : {}),
    }
  }
  return { name: 'Error', message: String(error) }
}

function formatIssues(issues: ConfigIssue[]): string {
  if (issues.length === 1) return `${issues[0]!.path} ${issues[0]!.message}`
  return `Invalid configuration (${issues.length} issues):\n${issues.map((i) => `  - ${i.path} ${i.message}`).join('\n')}`
}
