import type { SampleRequest } from '../../config/records.ts'
import { DatasetError } from '../../errors.ts'
import type { Rng } from '../../rng.ts'
import { HubError } from '../../tokenizer/hub.ts'

/** Length limits of Python's `is_valid_sequence` (vllm/benchmarks/datasets/utils.py). */
export interface SequenceLimits {
  minLen?: number
  maxPromptLen?: number
  maxTotalLen?: number
  /** A fixed output length was asked for: the output is not checked against `minLen`. */
  skipMinOutputLenCheck?: boolean
}

/**
 * Python `is_valid_sequence`: prompt ≥ 4 tokens, output ≥ 4 (unless skipped), prompt ≤ 1024,
 * prompt + output ≤ 2048 by default.
 */
export function isValidSequence(promptLen: number, outputLen: number, limits: SequenceLimits = {}): boolean {
  const { minLen = 4, maxPromptLen = 1024, maxTotalLen = 2048, skipMinOutputLenCheck = false } = limits
  const tooShort = promptLen < minLen || (!skipMinOutputLenCheck && outputLen < minLen)
  return !tooShort && promptLen <= maxPromptLen && promptLen + outputLen <= maxTotalLen
}

/**
 * Python `maybe_oversample_requests`: when fewer than `numPrompts` were kept, appends copies of
 * randomly chosen ones (with replacement) from the dataset's own RNG, unless `noOversample`.
 */
export function oversample(
  requests: SampleRequest[],
  numPrompts: number,
  rng: Rng,
  noOversample: boolean,
): SampleRequest[] {
  if (noOversample || requests.length === 0 || requests.length >= numPrompts) return requests
  const originals = requests.length
  for (let i = originals; i < numPrompts; i++) requests.push({ ...requests[rng.int(0, originals - 1)]! })
  return requests
}

/** Turns a hub failure into a `DatasetError` that names the dataset; other errors pass through. */
export function hubDatasetError(dataset: string, what: string, error: unknown): unknown {
  if (!(error instanceof HubError)) return error
  return new DatasetError(`${dataset}: cannot get ${what}: ${error.message}`, { cause: error })
}
