/** A perf section's repeat count from the environment (`PYTHON_ROUNDS=5`), checked. */
export function countFromEnv(name: string, fallback: number): number {
  const text = process.env[name]
  if (text === undefined || text === '') return fallback
  const count = Number(text)
  if (!Number.isInteger(count) || count < 1) {
    throw new Error(`${name} must be a whole number, 1 or more (got ${JSON.stringify(text)})`)
  }
  return count
}
