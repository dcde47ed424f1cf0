/**
 * What the random family shares (random, random-mm, random-rerank, multi-turn): the length flags,
 * their defaults and how they are read. `--input-len`/`--output-len` win over their `--random-*`
 * forms, as in Python.
 */
import { defaultBenchConfig } from '../../config/defaults.ts'
import { type FieldSpec, f } from '../../config/dsl-fields.ts'
import type { Reader } from '../../config/resolve.ts'
import { flagRow } from '../dataset-module.ts'
import { parseRangeRatio, type RangeRatio } from './range-ratio.ts'

/** The lengths random and random-mm share: prompt, output and prefix tokens, and their spread. */
export interface RandomTextLengths {
  inputLen: number
  outputLen: number
  prefixLen: number
  rangeRatio: RangeRatio
}

/** Python's defaults of the random lengths (`defaultBenchConfig().dataset`), for the flag rows. */
export const DEFAULT_RANDOM_LENGTHS: RandomTextLengths = (() => {
  const { inputLen, outputLen, prefixLen, rangeRatio } = defaultBenchConfig().dataset
  return { inputLen, outputLen, prefixLen, rangeRatio }
})()

export const RANDOM_INPUT_LEN = flagRow(
  '--random-input-len',
  'int',
  'Prompt tokens per request (special tokens included).',
  { default: String(DEFAULT_RANDOM_LENGTHS.inputLen) },
)
export const RANDOM_OUTPUT_LEN = flagRow('--random-output-len', 'int', 'Output tokens per request.', {
  default: String(DEFAULT_RANDOM_LENGTHS.outputLen),
})
export const RANDOM_PREFIX_LEN = flagRow(
  '--random-prefix-len',
  'int',
  'Shared prefix tokens before every prompt.',
  {
    default: String(DEFAULT_RANDOM_LENGTHS.prefixLen),
  },
)
export const RANDOM_RANGE_RATIO = flagRow(
  '--random-range-ratio',
  'string',
  'r in [0,1) or {"input":a,"output":b}: lengths from [L(1-r), L(1+r)].',
  { default: '0.0' },
)
export const RANDOM_BATCH_SIZE = flagRow(
  '--random-batch-size',
  'int',
  'Inputs per request (pooling backends; random-rerank: documents).',
  { default: '1' },
)

/** The flag rows of {@link RandomTextLengths}, first in the flags of random and random-mm. */
export const RANDOM_TEXT_FLAGS = [
  RANDOM_INPUT_LEN,
  RANDOM_OUTPUT_LEN,
  RANDOM_PREFIX_LEN,
  RANDOM_RANGE_RATIO,
] as const

/** The DSL fields of {@link RandomTextLengths}, first in the field tables of random and random-mm. */
export const RANDOM_TEXT_FIELDS: { readonly [K in keyof RandomTextLengths]: FieldSpec } = {
  inputLen: f(RANDOM_INPUT_LEN.name),
  outputLen: f(RANDOM_OUTPUT_LEN.name),
  prefixLen: f(RANDOM_PREFIX_LEN.name),
  rangeRatio: f(RANDOM_RANGE_RATIO.name, 'numberOrJson'),
}

/** The lengths random and random-mm share, each falling back to Python's default. */
export function readRandomLengths(read: Reader): RandomTextLengths {
  const d = defaultBenchConfig().dataset
  return {
    inputLen: readInputLen(read),
    outputLen: read.int('--output-len', 1) ?? read.int(RANDOM_OUTPUT_LEN.name, 1) ?? d.outputLen,
    prefixLen: read.int(RANDOM_PREFIX_LEN.name, 0) ?? d.prefixLen,
    rangeRatio: readRangeRatio(read),
  }
}

/** `--input-len`, else `--random-input-len`, else 1024. */
export function readInputLen(read: Reader): number {
  return read.int('--input-len', 1) ?? read.int(RANDOM_INPUT_LEN.name, 1) ?? DEFAULT_RANDOM_LENGTHS.inputLen
}

/** `--random-range-ratio`, a number or `{"input","output"}`; 0 by default. */
export function readRangeRatio(read: Reader): RangeRatio {
  return read.parsed(RANDOM_RANGE_RATIO.name, parseRangeRatio) ?? defaultBenchConfig().dataset.rangeRatio
}
