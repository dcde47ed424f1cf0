import type { Tokenizer as HfTokenizer } from '@huggingface/tokenizers'
import type { TextSplitting } from './splitting.ts'

// Split patterns of byte-level BPE tokenizers where a space after a non-space always starts a piece.
const SPLITTABLE_PATTERNS = new Set([
  // Qwen 2 / 2.5 / 3
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
  // Llama 3
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
])

interface PreTokenizerSpec {
  type?: string
  add_prefix_space?: boolean
  use_regex?: boolean
  pattern?: { Regex?: string }
  behavior?: string
  invert?: boolean
  pretokenizers?: PreTokenizerSpec[]
}

interface TokenizerSpec {
  normalizer?: { type?: string } | null
  pre_tokenizer?: PreTokenizerSpec | null
  decoder?: { type?: string } | null
  model?: Record<string, unknown>
  added_tokens?: Array<{ content?: unknown; lstrip?: unknown; rstrip?: unknown }>
}

/**
 * The space-splitting promise (see `TextSplitting`) of a Hugging Face tokenizer, for the
 * byte-level BPE shapes it holds for: no normaliser or NFC; GPT-2's ByteLevel regex, or a known
 * Split pattern then ByteLevel without its regex; no prefix space; a ByteLevel decoder that does
 * not clean up spaces; added tokens without whitespace or stripping. Anything else gets none
 * (and the random dataset re-encodes whole prompts).
 */
export function hfSpaceSplitting(
  json: unknown,
  config: unknown,
  tokenizer: HfTokenizer,
  vocabSize: number,
): TextSplitting | undefined {
  const spec = json as TokenizerSpec
  const options = config as Record<string, unknown>
  const normalizer = spec.normalizer?.type
  if (normalizer !== undefined && normalizer !== 'NFC') return undefined
  if (!splitsAtSpaces(spec.pre_tokenizer) || spec.decoder?.type !== 'ByteLevel') return undefined
  // The library cleans up spaces (" ." → ".") unless told not to, which makes decoding not concatenative.
  if (
    options.clean_up_tokenization_spaces !== false ||
    options.remove_space ||
    options.do_lowercase_and_remove_accent
  )
    return undefined
  const model = spec.model ?? {}
  if (
    model.type !== 'BPE' ||
    model.byte_fallback ||
    model.continuing_subword_prefix ||
    model.end_of_word_suffix
  )
    return undefined
  for (const added of spec.added_tokens ?? []) {
    if (typeof added.content !== 'string' || /\s/.test(added.content) || added.lstrip || added.rstrip)
      return undefined
  }
  const byteLengths = new Int32Array(vocabSize).fill(-1)
  // A byte-level vocabulary spells each byte with one character.
  for (const [token, id] of tokenizer.get_vocab(false)) byteLengths[id] = token.length
  return {
    byteLength: (id) => byteLengths[id] ?? -1,
    keepsBytes: normalizer === 'NFC' ? (text) => text.normalize('NFC') === text : () => true,
  }
}

function splitsAtSpaces(spec: PreTokenizerSpec | null | undefined): boolean {
  if (spec?.type === 'ByteLevel') return spec.add_prefix_space === false && spec.use_regex !== false
  if (spec?.type !== 'Sequence' || spec.pretokenizers?.length !== 2) return false
  const [split, byteLevel] = spec.pretokenizers
  return (
    split?.type === 'Split' &&
    SPLITTABLE_PATTERNS.has(split.pattern?.Regex ?? '') &&
    split.behavior === 'Isolated' &&
    split.invert === false &&
    byteLevel?.type === 'ByteLevel' &&
    byteLevel.add_prefix_space === false &&
    byteLevel.use_regex === false
  )
}
