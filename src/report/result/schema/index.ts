import type { ErrorObject } from 'ajv'
import schema from './result.schema.json' with { type: 'json' }
import { schemaValidator, type Validation } from './validator.ts'

/** The JSON Schema (draft-07) of a result file, as checked in. */
export const RESULT_SCHEMA: typeof schema = schema

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'result' : `result${error.instancePath.replaceAll('/', '.')}`
  const allowed =
    error.keyword === 'enum'
      ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')})`
      : ''
  return `${where} ${error.message ?? 'is invalid'}${allowed}`
}

// strictNumbers off: Python writes non-finite floats (`"burstiness": Infinity`), read back as numbers.
const validate = schemaValidator(schema, { allErrors: true, strict: true, strictNumbers: false }, describe)

/**
 * Checks a parsed result file (one JSON object; one line of a JSONL file) against the schema. Each
 * error names the key and what was expected: `result.completed must be integer`.
 */
export function validateResultFile(value: unknown): Validation {
  return validate(value)
}
