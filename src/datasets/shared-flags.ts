/**
 * The flag rows several dataset families read (file order, chat template, multimodal chat). Each
 * module that reads one lists the same row object, so `registry.ts` lists it once.
 */
import { type FieldSpec, f } from '../config/dsl-fields.ts'
import { flagRow } from './dataset-module.ts'

export const DISABLE_SHUFFLE = flagRow(
  '--disable-shuffle',
  'boolean',
  'Keep dataset order (no effect on random).',
)

export const NO_OVERSAMPLE = flagRow(
  '--no-oversample',
  'boolean',
  'Do not repeat samples of a small dataset (no effect on random).',
)

export const SKIP_CHAT_TEMPLATE = flagRow(
  '--skip-chat-template',
  'boolean',
  "custom, hf (InstructCoder, MT-Bench, HumanEval, GSM8K, Blazedit): send prompts without the tokenizer's chat template.",
)

export const ENABLE_MULTIMODAL_CHAT = flagRow(
  '--enable-multimodal-chat',
  'boolean',
  'custom_audio: send each clip to openai-chat as an input_audio part (required there). Accepted by random-mm and custom_image, whose user message (text, then images) is the same either way.',
)

/** The DSL fields of the flags every dataset module may read (`cli/flags.ts` owns their rows). */
export const PATH_FIELD: FieldSpec = f('--dataset-path')
export const NUM_PROMPTS_FIELD: FieldSpec = f('--num-prompts')

/** `disableShuffle` and `noOversample`, as the file datasets take them. */
export const ORDER_FIELDS: { readonly disableShuffle: FieldSpec; readonly noOversample: FieldSpec } = {
  disableShuffle: f(DISABLE_SHUFFLE.name, 'switch'),
  noOversample: f(NO_OVERSAMPLE.name, 'switch'),
}
