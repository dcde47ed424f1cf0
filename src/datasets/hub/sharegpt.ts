import { readFile } from 'node:fs/promises'
import { dirname, extname, resolve } from 'node:path'
import { type DatasetFlagContext, needsTokenizer } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { MediaPart, SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { hubFile } from '../../tokenizer/hub.ts'
import { regularFileSize } from '../dataset-file.ts'
import { type DatasetContext, defineDataset, flagRow, type TaggedDataset } from '../dataset-module.ts'
import { dataUrl, KNOWN_IMAGE_FORMATS, sniffImageMime } from '../image-bytes.ts'
import { isMediaUrl } from '../image-ref.ts'
import {
  type HubOrderOptions,
  ORDER_FLAGS,
  type OrderConfig,
  orderedFileFields,
  readOrder,
} from '../shared-flags.ts'
import { hubDatasetError, isValidSequence, oversample } from './hub-sampling.ts'
import { generateShareGptConversations } from './multi-turn-sharegpt.ts'

/** `--dataset-name sharegpt`: ShareGPT conversations (Python `ShareGPTDataset`; Rust: datasets/sharegpt.rs). */
export interface ShareGptDatasetConfig extends OrderConfig {
  kind: 'sharegpt'
  /** A local JSON file; undefined downloads `ShareGPT_V3_unfiltered_cleaned_split.json` through the hub cache. */
  path?: string
  /** `--sharegpt-output-len`: a fixed output length (skips the minimum-output check). */
  outputLen?: number
}

/** Options of `datasets.sharegpt` (`--dataset-name sharegpt`). See docs/datasets-hub.md. */
export interface ShareGptDatasetOptions extends HubOrderOptions {
  /** A ShareGPT JSON file. @default ShareGPT_V3_unfiltered_cleaned_split.json from the hub cache */
  path?: string
  /** Output tokens per request (`--sharegpt-output-len`). @default the token count of turn 1 */
  outputLen?: number
}

/** A tagged `sharegpt` dataset, as `datasets.sharegpt()` returns it (a multi-turn `source`). */
export type ShareGptDatasetSpec = TaggedDataset<ShareGptDatasetOptions, 'sharegpt'>

/** Why the hub datasets need a tokenizer, as their `--skip-tokenizer-init` issue says it. */
export const TO_COUNT = 'it needs a tokenizer to count prompt tokens'

const SHAREGPT_OUTPUT_LEN = flagRow(
  '--sharegpt-output-len',
  'int',
  'sharegpt: fixed output length (skips the minimum-output check).',
)

/** `--dataset-name sharegpt`: ShareGPT conversations from a file, or the default file from the hub. */
export const shareGptDataset = defineDataset<ShareGptDatasetConfig, ShareGptDatasetOptions>({
  kind: 'sharegpt',
  summary: 'ShareGPT conversations, from a file or the hub ([datasets-hub.md](datasets-hub.md))',
  datasetName: 'sharegpt',
  builder: 'sharegpt',
  fields: orderedFileFields<ShareGptDatasetOptions>({
    outputLen: f(SHAREGPT_OUTPUT_LEN.name),
  }),
  flags: [SHAREGPT_OUTPUT_LEN, ...ORDER_FLAGS],
  resolve: resolveShareGpt,
  generate: generateShareGpt,
  conversations: generateShareGptConversations,
})

function resolveShareGpt(read: Reader, context: DatasetFlagContext): ShareGptDatasetConfig {
  needsTokenizer('sharegpt', context, TO_COUNT)
  const dataset: ShareGptDatasetConfig = {
    kind: 'sharegpt',
    ...readOrder(read),
  }
  const path = read.string('--dataset-path')
  if (path !== undefined) dataset.path = path
  const outputLen = read.int(SHAREGPT_OUTPUT_LEN.name, 1)
  if (outputLen !== undefined) dataset.outputLen = outputLen
  return dataset
}

/** Where the ShareGPT file comes from when `--dataset-path` is not given (Rust: datasets/sharegpt.rs). */
export const SHAREGPT_HUB_REPO = 'anon8231489123/ShareGPT_Vicuna_unfiltered'
export const SHAREGPT_HUB_FILE = 'ShareGPT_V3_unfiltered_cleaned_split.json'

/**
 * The `sharegpt` dataset (Python `ShareGPTDataset.sample`; Rust: datasets/sharegpt.rs). Entries with at least two
 * `conversations` turns, shuffled with `seed` unless `disableShuffle`; the prompt is turn 0, the
 * output length the token count of turn 1 unless `outputLen` is fixed. Kept when
 * `isValidSequence` holds. Lengths count special tokens as Python's `tokenizer(text).input_ids`
 * does. An entry's `image` (else `video`) goes after the text of the chat message (`mediaPart`).
 * Oversampled from the same RNG unless `noOversample`.
 */
export async function generateShareGpt(
  config: ShareGptDatasetConfig,
  context: DatasetContext,
): Promise<SampleRequest[]> {
  const { tokenizer, numPrompts, seed } = context
  const path = config.path ?? (await downloadShareGpt())
  const entries = parseShareGpt(path, await readShareGpt(path))
  const rng = createRng(seed)
  if (!config.disableShuffle) rng.shuffle(entries)

  const requests: SampleRequest[] = []
  const media = new Map<string, Promise<MediaPart>>()
  let withMedia = 0
  for (const entry of entries) {
    if (requests.length >= numPrompts) break
    if (entry.prompt === '') continue
    const promptLen = (await tokenizer.encode(entry.prompt, { addSpecialTokens: true })).length
    const outputLen =
      config.outputLen ?? (await tokenizer.encode(entry.completion, { addSpecialTokens: true })).length
    const skipMinOutputLenCheck = config.outputLen !== undefined
    if (!isValidSequence(promptLen, outputLen, { skipMinOutputLenCheck })) continue
    const request: SampleRequest = { prompt: entry.prompt, promptLen, expectedOutputLen: outputLen }
    if (entry.media !== undefined) {
      const key = `${entry.media.kind} ${entry.media.source}`
      if (!media.has(key)) media.set(key, mediaPart(path, entry.media))
      request.multiModalContent = [await media.get(key)!]
      withMedia++
    }
    requests.push(request)
  }
  if (withMedia > 0 && context.backend !== 'openai-chat') {
    console.warn(
      `servebench: sharegpt: ${withMedia} of the sampled entries carry an image or video, which only ` +
        `--backend openai-chat sends; --backend ${context.backend ?? 'vllm'} sends their text only`,
    )
  }
  if (requests.length === 0) {
    throw new DatasetError(
      `sharegpt: ${path} has no usable conversation (prompt of 4 to 1024 tokens, output of at least 4, ` +
        'at most 2048 together)',
    )
  }
  return oversample(requests, numPrompts, rng, config.noOversample)
}

interface ShareGptEntry {
  prompt: string
  completion: string
  /** The entry's `image` field, else its `video` field (Python reads them in that order). */
  media?: EntryMedia
}

interface EntryMedia {
  kind: 'image' | 'video'
  /** A URL, or a path (relative to the ShareGPT file's folder). */
  source: string
  /** Names the entry in errors. */
  where: string
}

/**
 * Parses a ShareGPT JSON array. Entries whose `conversations` has fewer than two turns are
 * dropped (as upstream); a wrongly shaped entry throws a `DatasetError` naming the file, the
 * entry index and the field.
 */
export function parseShareGpt(path: string, text: string): ShareGptEntry[] {
  const data = shareGptArray(path, text)
  const entries: ShareGptEntry[] = []
  for (const [index, item] of data.entries()) {
    const where = `sharegpt: ${path}: entry ${index}`
    const conversations = (item as { conversations?: unknown } | null)?.conversations
    if (!Array.isArray(conversations)) {
      throw new DatasetError(`${where}: field "conversations" must be an array of {"from", "value"} turns`)
    }
    if (conversations.length < 2) continue
    const turn = (i: number): string => {
      const value = (conversations[i] as { value?: unknown } | null)?.value
      if (typeof value !== 'string')
        throw new DatasetError(`${where}: field "conversations[${i}].value" must be a string`)
      return value
    }
    const entry: ShareGptEntry = { prompt: turn(0), completion: turn(1) }
    const media = entryMedia(item as Record<string, unknown>, where)
    if (media !== undefined) entry.media = media
    entries.push(entry)
  }
  return entries
}

// Python: `if image := entry.get("image")` then `elif video := entry.get("video")`: empty values are skipped.
function entryMedia(item: Record<string, unknown>, where: string): EntryMedia | undefined {
  for (const kind of ['image', 'video'] as const) {
    const value = item[kind]
    if (value === undefined || value === null || value === '') continue
    if (typeof value !== 'string') {
      throw new DatasetError(`${where}: field "${kind}" must be a string (a path or a URL)`)
    }
    return { kind, source: value, where }
  }
  return undefined
}

const VIDEO_TYPES: Readonly<Record<string, string>> = {
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.mkv': 'video/x-matroska',
  '.avi': 'video/x-msvideo',
}

/**
 * An entry's image or video as a chat part. A URL (http, https, file, data) is sent as is; a
 * local path, relative to the ShareGPT file's folder, is read and sent as a base64 data URL, an
 * image with the type its bytes show, a video with the type of its extension (MP4 otherwise).
 */
async function mediaPart(datasetPath: string, media: EntryMedia): Promise<MediaPart> {
  const { kind, source, where } = media
  let url = source
  if (!isMediaUrl(source)) {
    const file = resolve(dirname(datasetPath), source)
    let bytes: Buffer
    try {
      bytes = await readFile(file)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder' : 'cannot be read'
      throw new DatasetError(`${where}: ${kind} ${file} ${why}`, { cause: error })
    }
    const mime =
      kind === 'image' ? sniffImageMime(bytes) : (VIDEO_TYPES[extname(file).toLowerCase()] ?? 'video/mp4')
    if (mime === undefined) {
      throw new DatasetError(`${where}: image ${file} is not a ${KNOWN_IMAGE_FORMATS} file`)
    }
    url = dataUrl(mime, bytes)
  }
  return kind === 'image'
    ? { type: 'image_url', image_url: { url } }
    : { type: 'video_url', video_url: { url } }
}

export async function readShareGpt(path: string): Promise<string> {
  // A FIFO or a device would block the run: only a regular file is read.
  await regularFileSize('sharegpt', path)
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a folder' : 'cannot be read'
    throw new DatasetError(`sharegpt: --dataset-path ${path} ${why}`, { cause: error })
  }
}

export async function downloadShareGpt(): Promise<string> {
  try {
    return await hubFile(SHAREGPT_HUB_REPO, SHAREGPT_HUB_FILE, { type: 'dataset' })
  } catch (error) {
    throw hubDatasetError(
      'sharegpt',
      `${SHAREGPT_HUB_FILE} of ${SHAREGPT_HUB_REPO} (pass --dataset-path with a local copy)`,
      error,
    )
  }
}

/** The entries of a ShareGPT file: its text parsed, and checked to be a JSON array. */
export function shareGptArray(path: string, text: string): unknown[] {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw new DatasetError(`sharegpt: ${path}: not valid JSON (${describeJsonError(text, error)})`, {
      cause: error,
    })
  }
  if (!Array.isArray(data)) {
    throw new DatasetError(`sharegpt: ${path}: must be a JSON array of {"conversations": [...]} entries`)
  }
  return data
}

/** A JSON.parse failure with its line and column: `Expected ',' or '}' after property value at line 4, column 19`. */
export function describeJsonError(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  const match = / in JSON at position (\d+)/.exec(message)
  if (!match) return message
  const position = Number(match[1])
  const before = text.slice(0, position)
  const line = before.split('\n').length
  const column = position - before.lastIndexOf('\n')
  return `${message.slice(0, match.index)} at line ${line}, column ${column}`
}
