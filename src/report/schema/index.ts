import { Ajv, type ErrorObject } from 'ajv'
import schema from './result.schema.json' with { type: 'json' }

/** The JSON Schema (draft-07) of a result file, as checked in. */
export const RESULT_SCHEMA: typeof schema = schema

// Compiled once: ajv compilation costs milliseconds, validation microseconds.
const validate = new Ajv({ allErrors: true, strict: true }).compile(schema)

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
  if (validate(value)) return { valid: true }
  const errors = [...new Set((validate.errors ?? []).map(describe))]
  return { valid: false, errors }
}
