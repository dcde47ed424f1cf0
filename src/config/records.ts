/** Plain data shapes that flow between the pipeline stages. */

/** One request a dataset produced. Python's `SampleRequest`. */
export interface SampleRequest {
  /** The text prompt (also set when `promptTokenIds` is used, for display and re-tokenising). */
  prompt: string
  /** Token ids sent instead of the text (`--prompt-token-ids`, timed traces). */
  promptTokenIds?: number[]
  /** Prompt length in tokens under the run's tokenizer. */
  promptLen: number
  /** `max_tokens` to ask for. */
  expectedOutputLen: number
  /**
   * Trace time in seconds (`timed_trace`, self-timed): the run sends this request at
   * `timestampS - min(timestampS)` after its start instead of the computed schedule.
   */
  timestampS?: number
  /** Several inputs in one request (pooling backends, `--random-batch-size`); rerank: `[query, ...documents]`. */
  promptList?: string[]
  /** Images or a video sent after the text part of a chat message (`random-mm`, hf, sharegpt); Python's `multi_modal_data`. */
  multiModalContent?: MediaPart[]
  /**
   * Messages the chat backend sends as they are, instead of one user message built from `prompt`
   * and `multiModalContent` (Python's `chat_messages`): BFCL's first turn, MLPerf's system and
   * user messages, custom_image's interleaved parts. `prompt` then only names the request.
   */
  chatMessages?: ChatMessage[]
  /** Body fields of this request (Python's `request_overrides`, e.g. BFCL's `tools`); they win over `--extra-body`. */
  requestOverrides?: Record<string, unknown>
  /** Audio sent by `openai-audio` in place of synthetic audio (ASR families, `custom_audio`), or by `openai-chat` as an `input_audio` part. */
  audio?: AudioInput
}

/**
 * Audio a dataset attaches to a request (the ASR families of `hf`, `custom_audio`), which the
 * `openai-audio` backend sends as the form's `file` part instead of synthetic audio, and
 * `openai-chat` as an {@link InputAudioPart} after the text.
 * Python's `multi_modal_data = {"audio": ...}` / `{"audio_path": ...}` / its `input_audio` part.
 */
export interface AudioInput {
  /** The file as the dataset holds it (WAV, FLAC or MP3). */
  bytes: Uint8Array
  /** The form part's file name, e.g. `audio.flac`; its extension is the chat part's `format`. */
  fileName: string
  /** The form part's `Content-Type`, e.g. `audio/flac`. */
  contentType: string
  /** Seconds of audio, from the file's header; the result's `rtfx` sums it. */
  durationS: number
}

/** One chat message as sent: a string content, or text and image parts in order. */
export interface ChatMessage {
  role: string
  content: string | ChatContentPart[]
}

/** A part of a chat message's content: text, or an image by URL (`detail` and other keys kept). */
export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; [key: string]: unknown } }

/** One chat content part besides the text: an image as a (data) URL. */
export interface MultiModalPart {
  type: 'image_url'
  image_url: { url: string }
}

/** A video as a (data) URL: Python's `process_video` part (MMVU, ShareGPT's `video` field). */
export interface VideoPart {
  type: 'video_url'
  video_url: { url: string }
}

/**
 * Audio as base64 file bytes: Python's `input_audio` chat part (`custom_audio` with
 * `--enable-multimodal-chat`). The chat backend builds it from a request's {@link AudioInput}
 * when it sends it, after any {@link MediaPart}s, so datasets never hold the base64 text.
 */
export interface InputAudioPart {
  type: 'input_audio'
  /** `format`: `wav`, `flac` or `mp3`. */
  input_audio: { data: string; format: string }
}

/** Any chat content part sent after the text of a dataset's prompt. */
export type MediaPart = MultiModalPart | VideoPart

/** What a backend returns for one request. Python's `RequestFuncOutput`; times in seconds. */
export interface RequestOutput {
  success: boolean
  /** `""` on success. */
  error: string
  generatedText: string
  /** The dataset's prompt length, overwritten by `usage.prompt_tokens` when the server reports it. */
  promptLen: number
  /** `usage.completion_tokens`; null when the server sent none (the tokenizer counts instead). */
  outputTokens: number | null
  /** Time to the first choice-bearing chunk. 0 for failures without one. */
  ttftS: number
  /** Gaps between choice-bearing chunks. */
  itlS: number[]
  /** Start to the last choice-bearing chunk. */
  latencyS: number
  /** Monotonic send time: `performance.now() / 1000`. */
  startTimeS: number
  /** Inputs the request carried (pooling backends; rerank: its documents). Absent means 1. */
  numInputSequences?: number
  /** Seconds of audio sent (openai-audio); feeds `rtfx`. */
  inputAudioDurationS?: number
  /** `usage.prompt_tokens_details.cached_tokens` (vLLM `--enable-prompt-tokens-details`); absent when not reported. */
  cachedTokens?: number
  /** The usage chunk's `metrics.queue_time_ms`, in seconds; absent when not reported. */
  serverQueueTimeS?: number
  /** The usage chunk's `metrics.time_to_first_token_ms`, in seconds; absent when not reported. */
  serverTtftS?: number
  /** The answer's `x-vllm-*` headers (routing metadata), by lower-case name; absent when none. */
  responseMetadata?: Record<string, string>
}

/** One request as the run recorded it, in dispatch order, failures included. */
export interface RequestRecord extends RequestOutput {
  requestId: string
  /** Output length used by the metrics: `outputTokens`, else the tokenizer's count, else 1. 0 for failures. */
  outputLen: number
  /** Scheduled arrival, monotonic seconds. */
  arrivalTimeS: number
  /**
   * When the schedule said to send it (the run start plus its offset), monotonic seconds. Open
   * loops measure latency from it too (coordinated omission); absent for multi-turn turns.
   */
  intendedTimeS?: number
  /** Time spent waiting for a concurrency slot: `startTimeS - arrivalTimeS`. */
  queueTimeS: number
}
