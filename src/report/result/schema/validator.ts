import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv'

/** What checking a parsed file against a schema says: valid, or each distinct error described. */
export type Validation = { valid: true } | { valid: false; errors: string[] }

/**
 * A check of values against `schema`, compiled on first use: compiling costs about 0.2 s of CPU,
 * which every CLI start would pay for a check only `compare` and the tests make; validating then
 * costs microseconds. Each error is described by `describe`, duplicates dropped.
 */
export function schemaValidator(
  schema: object,
  options: Options,
  describe: (error: ErrorObject) => string,
): (value: unknown) => Validation {
  let compiled: ValidateFunction | undefined
  return (value) => {
    compiled ??= new Ajv(options).compile(schema)
    if (compiled(value)) return { valid: true }
    return { valid: false, errors: [...new Set((compiled.errors ?? []).map(describe))] }
  }
}
