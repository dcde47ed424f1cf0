import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import schema from './result.schema.json' with { type: 'json' }

/** The JSON Schema (draft-07) of a result file, as checked in. */
export const RESULT_SCHEMA: typeof schema = schema

// Compiled once, on first use: compiling costs about 0.2 s of CPU, which every CLI start would pay
// for a check only `compare` and the tests make; validating then costs microseconds.
let compiled: ValidateFunction | undefined
const validator = (): ValidateFunction => {
  compiled ??= new Ajv({ allErrors: true, strict: true }).compile(schema)
  return compiled
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'result' : `result${error.instancePath.replaceAll('/', '.')}`
  const allowed =
    error.keyword === 'enum'
      ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`
      : ''
  return `${where} ${error.message ?? 'is invalid'}${allowed}`
}

/**
 * Checks a parsed result file (one JSON object; one line of a JSONL file) against the schema. Each
 * error names the key and what was expected: `result.completed must be integer`.
 */
export function validateResultFile(value: unknown): { valid: true } | { valid: false; errors: string[] } {
  const validate = validator()
  if (validate(value)) return { valid: true }
  const errors = [...new Set((validate.errors ?? []).map(describe))]
  return { valid: false, errors }
}
