import type { ErrorObject } from 'ajv'
import schema from './modes.schema.json' with { type: 'json' }
import { schemaValidator, type Validation } from './validator.ts'

/** The JSON Schema (draft-07) of the multi-turn, sweep and multi-run files. */
export const MODES_SCHEMA: typeof schema = schema

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'result' : `result${error.instancePath.replaceAll('/', '.')}`
  return `${where} ${error.message ?? 'is invalid'}`
}

const validate = schemaValidator(
  schema,
  { allErrors: true, strict: true, strictRequired: false, strictTypes: false, strictNumbers: false },
  describe,
)

/**
 * Checks a parsed multi-turn result, combined sweep JSON or multi-run summary (its `mode` key says
 * which). Each error names the key and what was expected.
 */
export function validateModeFile(value: unknown): Validation {
  return validate(value)
}
