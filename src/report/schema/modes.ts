import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import schema from './modes.schema.json' with { type: 'json' }

/** The JSON Schema (draft-07) of the multi-turn, sweep and multi-run files. */
export const MODES_SCHEMA: typeof schema = schema

// Compiled on first use, as the result schema (./index.ts).
let compiled: ValidateFunction | undefined
const validator = (): ValidateFunction => {
  compiled ??= new Ajv({ allErrors: true, strict: true, strictRequired: false, strictTypes: false }).compile(
    schema,
  )
  return compiled
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'result' : `result${error.instancePath.replaceAll('/', '.')}`
  return `${where} ${error.message ?? 'is invalid'}`
}

/**
 * Checks a parsed multi-turn result, combined sweep JSON or multi-run summary (its `mode` key says
 * which). Each error names the key and what was expected.
 */
export function validateModeFile(value: unknown): { valid: true } | { valid: false; errors: string[] } {
  const validate = validator()
  if (validate(value)) return { valid: true }
  return { valid: false, errors: [...new Set((validate.errors ?? []).map(describe))] }
}
