import type { MediaPart } from '../../config/records.ts'
import { DatasetError } from '../../errors.ts'
import type { HfDatasetConfig } from './hf.ts'
import type { Row } from './hf-columns.ts'
import { HF_IMAGE_FAMILIES } from './hf-image-families.ts'
import type { SequenceLimits } from './hub-sampling.ts'

/**
 * A dataset family of the Python reference (`vllm/benchmarks/datasets/huggingface.py`): how its
 * rows become prompts, its default output length, and its validity limits.
 */
export interface HfFamily {
  name: string
  ids: readonly string[]
  /** Output length when `--hf-output-len` is not given; undefined = the completion's token count. */
  defaultOutputLen?: number
  /** With a dynamic output length, rows failing `isValidSequence` under these limits are skipped. */
  limits?: SequenceLimits
  /** `--hf-output-len` is ignored (Python: NextEdit always uses the reference output). */
  ignoresOutputLen?: boolean
  /** The prompt and reference completion of a row; undefined skips the row. */
  extract(row: Row): { prompt: string; completion?: string } | undefined
  /** Python renders the prompt as a user message with the chat template (unless `--skip-chat-template`). */
  chatTemplate?: boolean
  /** Rows this returns false for are skipped (Blazedit's distance range). */
  accepts?(row: Row, config: HfDatasetConfig): boolean
  /** Python's default `--hf-split` for this family; undefined = the datasets-server choice. */
  defaultSplit?: string
  /** Python's default `--hf-subset` (config) for this family; undefined = the datasets-server choice. */
  defaultSubset?: string
  /** Images or a video each kept row sends after its text (hf-image-families.ts); needs `--backend openai-chat`. */
  media?: { kind: 'images' | 'a video'; parts(row: Row): MediaPart[] }
}

const str = (value: unknown): string => (typeof value === 'string' ? value : '')

// Python: zeta_prompt (NextEditPredictionDataset).
const ZETA_PROMPT = (events: string, excerpt: string): string =>
  '### Instruction:\nYou are a code completion assistant and your task is to analyze user edits and then ' +
  'rewrite an excerpt that the user provides, suggesting the appropriate edits within the excerpt, taking ' +
  `into account the cursor location.\n\n### User Edits:\n\n${events}\n\n### User Excerpt:\n\n${excerpt}\n\n` +
  '### Response:\n\n'

/**
 * The families servebench implements. InstructCoder, MT-Bench, HumanEval, GSM8K and Blazedit prompts go
 * through the chat template, as in Python.
 */
export const HF_FAMILIES: readonly HfFamily[] = [
  {
    name: 'conversation',
    ids: ['Aeala/ShareGPT_Vicuna_unfiltered'],
    limits: {},
    extract: (row) => {
      const conv = row.conversations
      if (!Array.isArray(conv) || conv.length < 2) return undefined
      return { prompt: str(conv[0]?.value), completion: str(conv[1]?.value) }
    },
  },
  {
    name: 'instruct-coder',
    ids: ['likaixin/InstructCoder'],
    defaultOutputLen: 200,
    chatTemplate: true,
    extract: (row) => ({
      prompt: `${str(row.input)}\n\n${str(row.instruction)} Just output the code, do not include any explanation.`,
    }),
  },
  {
    name: 'mt-bench',
    ids: ['philschmid/mt-bench'],
    defaultOutputLen: 256,
    chatTemplate: true,
    extract: (row) => ({ prompt: Array.isArray(row.turns) ? str(row.turns[0]) : '' }),
  },
  // Python: HumanEvalDataset and GSM8KDataset, single-turn like MT-Bench; Python loads the test
  // split (and GSM8K's `main` config), which the datasets-server would not choose first.
  {
    name: 'humaneval',
    ids: ['openai/openai_humaneval'],
    defaultOutputLen: 256,
    chatTemplate: true,
    defaultSplit: 'test',
    extract: (row) => ({ prompt: str(row.prompt) }),
  },
  {
    name: 'gsm8k',
    ids: ['openai/gsm8k'],
    defaultOutputLen: 256,
    chatTemplate: true,
    defaultSplit: 'test',
    defaultSubset: 'main',
    extract: (row) => ({ prompt: str(row.question) }),
  },
  {
    name: 'aimo',
    ids: ['AI-MO/aimo-validation-aime', 'AI-MO/NuminaMath-1.5', 'AI-MO/NuminaMath-CoT'],
    limits: { maxPromptLen: 2048, maxTotalLen: 32_000 },
    extract: (row) => ({ prompt: str(row.problem), completion: str(row.solution) }),
  },
  {
    name: 'blazedit',
    ids: ['vdaita/edit_5k_char', 'vdaita/edit_10k_char'],
    defaultOutputLen: 4000,
    chatTemplate: true,
    accepts: withinBlazeditDistance,
    extract: (row) => ({
      prompt:
        'Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n' +
        `\`\`\`python\n${str(row.code)}\n\`\`\`\n\nChange request:\n${str(row.change_request)}\n\n` +
        'Please generate the new code file in the "New file" section below.',
    }),
  },
  {
    name: 'next-edit',
    ids: ['zed-industries/zeta'],
    ignoresOutputLen: true,
    extract: (row) => {
      const output = str(row.output)
      const start = output.indexOf('<|editable_region_start|>')
      return {
        prompt: ZETA_PROMPT(str(row.events), str(row.input)),
        completion: start < 0 ? output.slice(-1) : output.slice(start),
      }
    },
  },
  ...HF_IMAGE_FAMILIES,
]

/**
 * The family of a dataset id: a Python family, or undefined for any other id (read with Rust's
 * column auto-detection). The ASR, BFCL and MLPerf families are dispatched before this (hf.ts).
 */
export function findFamily(id: string): HfFamily | undefined {
  return HF_FAMILIES.find((f) => f.ids.includes(id))
}

/**
 * Blazedit's `--blazedit-min-distance` / `--blazedit-max-distance` (Python: `BlazeditDataset`):
 * a row is kept when its `norm_distance` column (the Levenshtein distance between the original and
 * the edited file, normalised by length) lies in [min, max]. Without the flags every row is kept.
 */
export function withinBlazeditDistance(row: Row, config: HfDatasetConfig): boolean {
  const range = config.blazeditDistance
  if (range === undefined) return true
  const distance = row.norm_distance
  if (typeof distance !== 'number' || Number.isNaN(distance)) {
    throw new DatasetError(
      `hf: ${config.hfName ?? config.path}: a row has no numeric norm_distance ` +
        `(got ${JSON.stringify(distance) ?? 'nothing'}), which --blazedit-min-distance and --blazedit-max-distance filter on`,
    )
  }
  return distance >= range.min && distance <= range.max
}
