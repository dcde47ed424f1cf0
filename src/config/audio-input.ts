/**
 * Audio a dataset attaches to a request (the ASR families of `hf`, `custom_audio`), which the
 * `openai-audio` backend sends as the form's `file` part instead of synthetic audio.
 * Python's `multi_modal_data = {"audio": ...}` / `{"audio_path": ...}`.
 */
export interface AudioInput {
  /** The file as the dataset holds it (WAV or FLAC). */
  bytes: Uint8Array
  /** The form part's file name, e.g. `audio.flac`. */
  fileName: string
  /** The form part's `Content-Type`, e.g. `audio/flac`. */
  contentType: string
  /** Seconds of audio, from the file's header; the result's `rtfx` sums it. */
  durationS: number
}

// SampleRequest (records.ts) is a shared contract this module does not edit: the optional field
// is added by declaration merging, so every other dataset and backend is unchanged.
declare module './records.ts' {
  interface SampleRequest {
    /** Audio sent by `openai-audio` in place of synthetic audio (ASR families, `custom_audio`). */
    audio?: AudioInput
  }
}
