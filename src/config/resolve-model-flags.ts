import type { ConfigIssue } from '../errors.ts'
import { type BenchConfig, type LoraConfig, POOLING_BACKENDS } from './bench-config.ts'
import type { Reader } from './resolve.ts'

/**
 * `--lora-modules`, `--lora-assignment` and `--max-model-len`: which model name each request
 * sends, and the context length requests (or multi-turn turns) must fit. Fills `config` and
 * reports bad values to `issues`. Python: `--lora-modules` (model field); Rust: `cli.rs`, `config.rs`.
 */
export function resolveModelFlags(read: Reader, config: BenchConfig, issues: ConfigIssue[]): void {
  const assignment = read.choice('--lora-assignment', ['random', 'round-robin'] as const) ?? 'random'
  const raw = read.parsed('--lora-modules', (value: string | string[]) =>
    Array.isArray(value) ? value : [value],
  )
  if (raw !== undefined) {
    const lora = checkLoraModules(raw, config.endpoint.backend, issues, '--lora-modules')
    if (lora) config.lora = { modules: lora, assignment }
  }
  const maxModelLen = read.int('--max-model-len', 1)
  if (maxModelLen !== undefined) config.maxModelLen = maxModelLen
}

/**
 * The adapter names, or undefined with an issue: a pooling backend takes no adapter name, and an
 * empty name is refused (Rust).
 */
export function checkLoraModules(
  names: readonly string[],
  backend: BenchConfig['endpoint']['backend'],
  issues: ConfigIssue[],
  path: string,
): LoraConfig['modules'] | undefined {
  if (POOLING_BACKENDS.includes(backend)) {
    issues.push({
      path,
      message: `cannot be used with the ${backend} backend: pooling backends take no LoRA adapter`,
    })
    return undefined
  }
  const modules = names.map((name) => name.trim())
  if (modules.length === 0 || modules.some((name) => name === '')) {
    issues.push({ path, message: `names must not be empty (got ${JSON.stringify(names.join(' '))})` })
    return undefined
  }
  return modules
}
