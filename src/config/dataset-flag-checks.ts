/**
 * What every `--dataset-name` flag resolver gets, and the flag checks several datasets share.
 * Each dataset module (`datasets/<family>/<name>.ts`) holds its resolver; `datasets/registry.ts` lists them.
 */
import type { ConfigIssue } from '../errors.ts'
import type { BackendName, DatasetConfig, TokenizerConfig } from './bench-config.ts'
import type { Reader } from './resolve.ts'

/** The resolved settings a dataset's flags are checked against, and where issues go. */
export interface DatasetFlagContext {
  backend: BackendName
  tokenizer: TokenizerConfig
  issues: ConfigIssue[]
}

/** One resolver per `--dataset-name`: reads its own flags, reports its own issues. */
export type DatasetFlagResolver = (read: Reader, context: DatasetFlagContext) => DatasetConfig

/** `--skip-tokenizer-init` is an issue for a dataset that needs a tokenizer; `why` ends the message. */
export function needsTokenizer(
  name: string,
  { tokenizer, issues }: DatasetFlagContext,
  why = 'it needs a tokenizer',
): void {
  if (tokenizer.skipInit) {
    issues.push({
      path: '--skip-tokenizer-init',
      message: `cannot be used with --dataset-name ${name}: ${why}`,
    })
  }
}

/** `--dataset-path` is required; `what` says what it names. Returns `''` when it is missing. */
export function requirePath(read: Reader, name: string, what: string, issues: ConfigIssue[]): string {
  const path = read.string('--dataset-path')
  if (path === undefined || path === '')
    issues.push({ path: '--dataset-path', message: `is required with --dataset-name ${name} (${what})` })
  return path ?? ''
}

/** `--dataset-path` is an issue for a dataset that generates its prompts. */
export function rejectPath(read: Reader, name: string, issues: ConfigIssue[]): void {
  if (read.string('--dataset-path') !== undefined)
    issues.push({
      path: '--dataset-path',
      message: `cannot be used with --dataset-name ${name} (it generates its prompts)`,
    })
}

/**
 * Python's custom datasets read only JSONL ("Only JSONL format is supported"): a path that does
 * not end in `.jsonl` is an issue. An empty path was already reported as missing.
 */
export function requireJsonl(path: string, issues: ConfigIssue[]): void {
  if (path !== '' && !path.endsWith('.jsonl'))
    issues.push({ path: '--dataset-path', message: `must be a .jsonl file (got ${JSON.stringify(path)})` })
}
