/**
 * The DSL options of every dataset (`datasets.<name>(options)`), types only. The DSL door
 * (`dsl-door.ts`) maps each field to its `servebench serve` flag; `resolve.ts` validates them.
 */
import type { RandomMmBucket, SpeedBenchSubset, TimedTraceLabels } from './bench-config.ts'

interface CommonOptions {
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
}
interface OrderOptions {
  /** Keep file order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat rows when the file has fewer than `numPrompts` (`--no-oversample`). @default false */
  noOversample?: boolean
}

/** Options of `datasets.custom` (`--dataset-name custom`). */
export interface CustomDatasetOptions extends CommonOptions, OrderOptions {
  /** A `.jsonl` file of `{"prompt": str, "output_tokens"?: int}` lines (`--dataset-path`). */
  path: string
  /** Output tokens per request; -1 takes each line's `output_tokens` (`--custom-output-len`). @default 256 */
  outputLen?: number
  /** Send prompts without the tokenizer's chat template (`--skip-chat-template`). @default false */
  skipChatTemplate?: boolean
}

/** Options of `datasets.sonnet` (`--dataset-name sonnet`). */
export interface SonnetDatasetOptions extends CommonOptions {
  /** A text file of poem lines. @default the built-in Shakespeare sonnets */
  path?: string
  /** Most prompt tokens per request (`--sonnet-input-len`). @default 550 */
  inputLen?: number
  /** Output tokens per request (`--sonnet-output-len`). @default 150 */
  outputLen?: number
  /** Tokens of poem lines shared by every prompt (`--sonnet-prefix-len`). @default 200 */
  prefixLen?: number
}

/** Options of `datasets.prefixRepetition` (`--dataset-name prefix_repetition`). */
export interface PrefixRepetitionDatasetOptions extends CommonOptions {
  /** Tokens of each shared prefix. @default 256 */
  prefixLen?: number
  /** Tokens after the prefix, different per request. @default 256 */
  suffixLen?: number
  /** Distinct prefixes; `numPrompts / numPrefixes` requests share each. @default 10 */
  numPrefixes?: number
  /** Output tokens per request. @default 128 */
  outputLen?: number
  /** Keep prefix groups together instead of interleaving them. @default false */
  disableShuffle?: boolean
}

/** Options of `datasets.burstgpt` (`--dataset-name burstgpt`). */
export interface BurstGptDatasetOptions extends CommonOptions {
  /** The BurstGPT `.csv` (columns `Model`, `Request tokens`, `Response tokens`). */
  path: string
}

/** Options of `datasets.speedBench` (`--dataset-name speed_bench`). */
export interface SpeedBenchDatasetOptions extends CommonOptions, OrderOptions {
  /** A directory of `{subset}.jsonl` files, or one such file. */
  path: string
  /** @default 'qualitative' */
  subset?: SpeedBenchSubset
  /** Output tokens per request. @default 4096 */
  outputLen?: number
  /** Keep only this category (exact match). @default every category */
  category?: string
  /** Cut longer prompts to the text of their first this many tokens (`--speed-bench-max-input-len`; Rust). @default no limit */
  maxInputLen?: number
}

/** Options of `datasets.specBench` (`--dataset-name spec_bench`). */
export interface SpecBenchDatasetOptions extends CommonOptions, OrderOptions {
  /** Spec-Bench's `question.jsonl`. */
  path: string
  /** Output tokens per request. @default 256 */
  outputLen?: number
  /** Keep only this category. @default every category */
  category?: string
}

/** Options of `datasets.timedTrace` (`--dataset-name timed_trace`; completions backends only). */
export interface TimedTraceDatasetOptions extends CommonOptions {
  /** A JSONL trace: one `{timestamp, input_length, output_length, hash_ids}` object per line. */
  path: string
  /** Prompt tokens each hash id stands for. @default 16 */
  chunkHashSize?: number
  /** Seconds per trace time unit (0.001 for milliseconds). @default 1 */
  secMultiplier?: number
  /** JSON field names. @default { timestamp: 'timestamp', inputLength: 'input_length', outputLength: 'output_length', hashIds: 'hash_ids' } */
  labels?: Partial<TimedTraceLabels>
  /** Send each request at its trace timestamp; `false` uses `load` instead. @default true */
  selfTimed?: boolean
}

export type CustomDatasetSpec = CustomDatasetOptions & { readonly kind: 'custom' }
export type SonnetDatasetSpec = SonnetDatasetOptions & { readonly kind: 'sonnet' }
export type PrefixRepetitionDatasetSpec = PrefixRepetitionDatasetOptions & {
  readonly kind: 'prefix_repetition'
}
export type BurstGptDatasetSpec = BurstGptDatasetOptions & { readonly kind: 'burstgpt' }
export type SpeedBenchDatasetSpec = SpeedBenchDatasetOptions & { readonly kind: 'speed_bench' }
export type SpecBenchDatasetSpec = SpecBenchDatasetOptions & { readonly kind: 'spec_bench' }
export type TimedTraceDatasetSpec = TimedTraceDatasetOptions & { readonly kind: 'timed_trace' }

export type LocalDatasetSpec =
  | CustomDatasetSpec
  | SonnetDatasetSpec
  | PrefixRepetitionDatasetSpec
  | BurstGptDatasetSpec
  | SpeedBenchDatasetSpec
  | SpecBenchDatasetSpec
  | TimedTraceDatasetSpec

interface HubOrderOptions {
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Keep dataset order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat rows when fewer than `numPrompts` are usable (`--no-oversample`). @default false */
  noOversample?: boolean
}

/** Options of `datasets.sharegpt` (`--dataset-name sharegpt`). See docs/datasets-hub.md. */
export interface ShareGptDatasetOptions extends HubOrderOptions {
  /** A ShareGPT JSON file. @default ShareGPT_V3_unfiltered_cleaned_split.json from the hub cache */
  path?: string
  /** Output tokens per request (`--sharegpt-output-len`). @default the token count of turn 1 */
  outputLen?: number
}

/** Options of `datasets.hf` (`--dataset-name hf`). See docs/datasets-hub.md. */
export interface HfDatasetOptions extends HubOrderOptions {
  /** A dataset id on the hub, or a local parquet/JSON/JSONL file or folder (`--dataset-path`). */
  path: string
  /** The dataset id that picks the family when `path` is local (`--hf-name`). @default path */
  hfName?: string
  /** Config (`--hf-subset`). @default 'default', else the first */
  subset?: string
  /** Split (`--hf-split`). @default the family's (MMVU validation, MMStar val), else train > test > validation > the first */
  split?: string
  /** Output tokens per request (`--hf-output-len`). @default the family's, else the reference's tokens */
  outputLen?: number
  /** Prompt column (`--hf-text-column`). @default auto-detected */
  textColumn?: string
  /** Send InstructCoder, MT-Bench and Blazedit prompts without the chat template (`--skip-chat-template`). @default false */
  skipChatTemplate?: boolean
  /** ASR families: skip rows whose audio is shorter than this many seconds (`--asr-min-audio-len-sec`). @default 0 */
  asrMinAudioLenS?: number
  /** ASR families: skip rows whose audio is longer than this many seconds (`--asr-max-audio-len-sec`). @default Infinity */
  asrMaxAudioLenS?: number
  /** Blazedit: keep rows whose edit distance is at least this fraction (`--blazedit-min-distance`). @default 0 */
  blazeditMinDistance?: number
  /** Blazedit: keep rows whose edit distance is at most this fraction (`--blazedit-max-distance`). @default 1 */
  blazeditMaxDistance?: number
  /** BFCL v3 categories to sample (`--bfcl-categories`). @default ['simple', 'live_simple', 'multiple'] */
  bfclCategories?: string[]
}

export interface ShareGptDatasetSpec extends ShareGptDatasetOptions {
  readonly kind: 'sharegpt'
}
export interface HfDatasetSpec extends HfDatasetOptions {
  readonly kind: 'hf'
}
export type HubDatasetSpec = ShareGptDatasetSpec | HfDatasetSpec

/** Options of `datasets.randomMm` (`--dataset-name random-mm`). */
export interface RandomMmDatasetOptions {
  /** Prompt tokens per request. @default 1024 */
  inputLen?: number
  /** Output tokens asked per request. @default 128 */
  outputLen?: number
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Shared prefix tokens. @default 0 */
  prefixLen?: number
  /** Length spread: one number for both, or per side. @default 0 */
  rangeRatio?: number | { input: number; output: number }
  /** Items (images and videos) per request (`--random-mm-base-items-per-request`). @default 1 */
  baseItemsPerRequest?: number
  /** Item-count spread r in [0, 1] (`--random-mm-num-mm-items-range-ratio`). @default 0 */
  numMmItemsRangeRatio?: number
  /** Per-modality caps (`--random-mm-limit-mm-per-prompt`). @default { image: 255, video: 1 } */
  limitMmPerPrompt?: { image?: number; video?: number }
  /**
   * Item sizes and weights: the `--random-mm-bucket-config` string, or a list. A bucket of 1
   * frame is a JPEG image; more frames make an MP4 video of that many frames at 30 fps.
   * @default '{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}'
   */
  buckets?: string | RandomMmBucket[]
  /** `--enable-multimodal-chat`: accepted; the body is the same. @default false */
  enableMultimodalChat?: boolean
}

/** A tagged `random-mm` dataset, as `datasets.randomMm()` returns it. */
export interface RandomMmDatasetSpec extends RandomMmDatasetOptions {
  readonly kind: 'random-mm'
}

/** Options of `datasets.randomRerank` (`--dataset-name random-rerank`). */
export interface RandomRerankDatasetOptions {
  /** Tokens of query + document. @default 1024 */
  inputLen?: number
  /** Documents in the run (`--num-prompts`; with `noReranker`, documents + 1). @default 1000 */
  numPrompts?: number
  /** Length spread r in [0, 1). @default 0 */
  rangeRatio?: number
  /** Documents per request (with `noReranker`: query + documents). @default 1 */
  batchSize?: number
  /** An embedding model instead of a reranker: the query is one more input (`--no-reranker`). @default false */
  noReranker?: boolean
}

/** A tagged `random-rerank` dataset, as `datasets.randomRerank()` returns it. */
export interface RandomRerankDatasetSpec extends RandomRerankDatasetOptions {
  readonly kind: 'random-rerank'
}

/**
 * Options of `datasets.multiTurn` (`--multi-turn`): synthetic conversations (`--dataset-name
 * random`), or real ones read from `source: datasets.sharegpt(...)` or `datasets.hf(...)`.
 */
export interface MultiTurnDatasetOptions {
  /**
   * Where the conversations come from: a ShareGPT file or an hf chat dataset (entries of 4+
   * messages; 2+ user turns kept). The lengths options and `prefix*Ratio` then do not apply, and
   * `maxTurns` caps the turns read (0 = no cap). @default synthetic conversations
   */
  source?: ShareGptDatasetSpec | HfDatasetSpec
  /** Prompt tokens of each conversation's first message. @default 1024 */
  inputLen?: number
  /** Prompt tokens of later messages (`--per-turn-input-len`); 0 = `inputLen`. @default 0 */
  perTurnInputLen?: number
  /** Output tokens asked per turn. @default 128 */
  outputLen?: number
  /** Conversations in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Turns per conversation. @default 3 */
  numTurns?: number
  /** Fewest turns; 0 = `numTurns`. @default 0 */
  minTurns?: number
  /** Most turns; 0 = `numTurns`. @default 0 */
  maxTurns?: number
  /** Think time between turns, ms; no concurrency slot is held. @default 0 */
  delayMs?: number
  /** Most turns in flight. @default the load's maxConcurrency, else numPrompts */
  concurrency?: number
  /** Share of each message common to every conversation; > 0 sends turns without history. @default 0 */
  prefixGlobalRatio?: number
  /** Share of each message common within a conversation; > 0 sends turns without history. @default 0 */
  prefixConversationRatio?: number
  /** Keep sending a conversation's turns after one fails. @default false */
  continueOnFailure?: boolean
}

/** A tagged multi-turn dataset, as `datasets.multiTurn()` returns it. @experimental */
export interface MultiTurnDatasetSpec extends MultiTurnDatasetOptions {
  readonly kind: 'multi-turn'
}

/** Options of `datasets.customImage` (`--dataset-name custom_image`). See docs/datasets.md. */
export interface CustomImageDatasetOptions {
  /** A `.jsonl` file of `{"prompt", "image_files"}` or `{"content": [parts]}` lines (`--dataset-path`). */
  path: string
  /** Output tokens per request (`--custom-output-len`). @default 256 */
  outputLen?: number
  /** Load local and http(s) images on the client and send them as base64 data URLs (`--custom-ensure-client-side-data`). @default false */
  ensureClientSideData?: boolean
  /** `--enable-multimodal-chat`: accepted; the body is the same. @default false */
  enableMultimodalChat?: boolean
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Keep file order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat lines when the file has fewer than `numPrompts` (`--no-oversample`). @default false */
  noOversample?: boolean
}

/** A tagged `custom_image` dataset, as `datasets.customImage()` returns it. */
export interface CustomImageDatasetSpec extends CustomImageDatasetOptions {
  readonly kind: 'custom_image'
}

/** Options of `datasets.customAudio` (`--dataset-name custom_audio`). See docs/datasets.md. */
export interface CustomAudioDatasetOptions {
  /** A `.jsonl` file of `{"prompt"?, "audio": path, "output_tokens"?}` lines (`--dataset-path`). */
  path: string
  /** Output tokens per request; -1 takes each line's `output_tokens` (`--custom-output-len`). @default 256 */
  outputLen?: number
  /** Count prompts without the tokenizer's chat template (`--skip-chat-template`). @default false */
  skipChatTemplate?: boolean
  /** Requests in the run (`--num-prompts`). @default 1000 */
  numPrompts?: number
  /** Keep file order (`--disable-shuffle`). @default false */
  disableShuffle?: boolean
  /** Do not repeat lines when the file has fewer than `numPrompts` (`--no-oversample`). @default false */
  noOversample?: boolean
  /**
   * Send each audio file to `openai-chat` as an `input_audio` part after the prompt
   * (`--enable-multimodal-chat`, Python's path for chat audio models); required with that backend,
   * refused with `openai-audio`. @default false
   */
  enableMultimodalChat?: boolean
}

/** A tagged `custom_audio` dataset, as `datasets.customAudio()` returns it. */
export interface CustomAudioDatasetSpec extends CustomAudioDatasetOptions {
  readonly kind: 'custom_audio'
}
