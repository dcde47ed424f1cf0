import type { BackendName } from '../../config/bench-config.ts'
import type { MultiModalPart, VideoPart } from '../../config/records.ts'
import { DatasetError } from '../../errors.ts'
import { dataUrl, KNOWN_IMAGE_FORMATS, sniffImageMime } from '../image-bytes.ts'
import { isMediaUrl } from '../image-ref.ts'
import type { Row } from './hf-columns.ts'
import type { HfFamily } from './hf-families.ts'

/** Output length of VisionArena, MMVU and MMStar rows without `--hf-output-len` (Python's `DEFAULT_OUTPUT_LEN`). */
const HF_IMAGE_OUTPUT_LEN = 128

const str = (value: unknown): string => (typeof value === 'string' ? value : '')

/** The first message's `content` of the first turn of a `[[{role, content}, ...], ...]` column. */
function firstTurnContent(id: string, column: string) {
  return (row: Row): { prompt: string } => {
    const turns = row[column]
    const first = Array.isArray(turns) && Array.isArray(turns[0]) ? turns[0][0] : undefined
    const content = (first as { content?: unknown } | undefined)?.content
    if (typeof content !== 'string') {
      throw new DatasetError(
        `hf: ${id}: a row's ${column}[0][0].content is not a string (got ${describe(content)}); ` +
          `expected ${column} to hold lists of {role, content} messages`,
      )
    }
    return { prompt: content }
  }
}

function visionArena(id: string, column: string): HfFamily {
  return {
    name: 'vision-arena',
    ids: [id],
    defaultOutputLen: HF_IMAGE_OUTPUT_LEN,
    defaultSplit: 'train',
    extract: firstTurnContent(id, column),
    media: {
      kind: 'images',
      parts: (row) => {
        const images = row.images
        if (!Array.isArray(images) || images.length === 0) {
          throw new DatasetError(`hf: ${id}: a row has no image in "images" (got ${describe(images)})`)
        }
        return [imagePart(images[0], `hf: ${id}: images[0]`)]
      },
    },
  }
}

/**
 * The image and video families of the Python reference (`VisionArenaDataset`, `MMVUDataset`,
 * `MMStarDataset`, `MultiModalConversationDataset`): their prompts, default output lengths and
 * splits, and the image or video part each row sends after its text. They need `--backend openai-chat`.
 */
export const HF_IMAGE_FAMILIES: readonly HfFamily[] = [
  visionArena('lmarena-ai/VisionArena-Chat', 'conversation'),
  visionArena('lmarena-ai/vision-arena-bench-v0.1', 'turns'),
  {
    name: 'mmvu',
    ids: ['yale-nlp/MMVU'],
    defaultOutputLen: HF_IMAGE_OUTPUT_LEN,
    defaultSplit: 'validation',
    extract: (row) => ({ prompt: mmvuPrompt(row) }),
    media: { kind: 'a video', parts: (row) => [videoPart(row.video, 'hf: yale-nlp/MMVU: video')] },
  },
  {
    name: 'mmstar',
    ids: ['Lin-Chen/MMStar'],
    defaultOutputLen: HF_IMAGE_OUTPUT_LEN,
    defaultSplit: 'val',
    // Python keeps the question before its "Options:" list.
    extract: (row) => ({ prompt: str(row.question).split('Options:', 1)[0]!.trim() }),
    media: { kind: 'images', parts: (row) => [imagePart(row.image, 'hf: Lin-Chen/MMStar: image')] },
  },
  {
    name: 'llava-onevision',
    ids: ['lmms-lab/LLaVA-OneVision-Data'],
    limits: {},
    extract: (row) => {
      const conv = row.conversations
      if (!Array.isArray(conv) || conv.length < 2) return undefined
      return { prompt: str(conv[0]?.value), completion: str(conv[1]?.value) }
    },
    media: {
      kind: 'images',
      // Python sends the image when the row has one; a text-only row (null image) goes without.
      parts: (row) =>
        row.image === null || row.image === undefined
          ? []
          : [imagePart(row.image, 'hf: lmms-lab/LLaVA-OneVision-Data: image')],
    },
  },
]

/**
 * MMVU's prompt (Python): the question, a space, then `key.value` for each choice joined by spaces.
 * A choice the export holds as null reads `None`, as Python's f-string writes it.
 */
export function mmvuPrompt(row: Row): string {
  const choices = row.choices
  const listed =
    typeof choices === 'object' && choices !== null && !Array.isArray(choices)
      ? Object.entries(choices).map(([key, value]) => `${key}.${value === null ? 'None' : String(value)}`)
      : []
  return `${str(row.question)} ${listed.join(' ')}`
}

/**
 * Refuses a family that sends images or video with any backend but `openai-chat`, before any row
 * is downloaded (Python refuses multimodal datasets on the completions backends).
 */
export function requireChatBackend(family: HfFamily, id: string, backend: BackendName | undefined): void {
  if (family.media === undefined || backend === 'openai-chat') return
  throw new DatasetError(
    `hf: ${id} sends ${family.media.kind} in chat messages, so it needs --backend openai-chat ` +
      `(endpoint({ backend: 'openai-chat' }) in the DSL); got ${backend ?? 'vllm'}`,
  )
}

/**
 * An image as a chat part (Python `process_image`): `{bytes}` (an HF `Image` column) becomes a
 * base64 data URL whose type is read from the bytes (JPEG, PNG, GIF, WebP, BMP, TIFF); a string is
 * a URL sent as is, or a path the server reads (`file://` prepended); `{bytes: null, path}` is that
 * path. `where` starts the error text.
 */
export function imagePart(value: unknown, where: string): MultiModalPart {
  const bytes = bytesOf(value)
  if (bytes !== undefined) {
    const mime = sniffImageMime(bytes)
    if (mime === undefined) {
      throw new DatasetError(
        `${where}: the bytes are not a ${KNOWN_IMAGE_FORMATS} image (they start with ${hexStart(bytes)})`,
      )
    }
    return { type: 'image_url', image_url: { url: dataUrl(mime, bytes) } }
  }
  const url = urlOf(value)
  if (url === undefined) {
    throw new DatasetError(
      `${where}: expected an image ({bytes, path}, a path or a URL), got ${describe(value)}`,
    )
  }
  return { type: 'image_url', image_url: { url } }
}

/** A video as a chat part (Python `process_video`): `{bytes}` as an MP4 data URL, a string as a URL or path. */
export function videoPart(value: unknown, where: string): VideoPart {
  const bytes = bytesOf(value)
  if (bytes !== undefined) return { type: 'video_url', video_url: { url: dataUrl('video/mp4', bytes) } }
  const url = urlOf(value)
  if (url === undefined) {
    throw new DatasetError(`${where}: expected a video ({bytes}, a path or a URL), got ${describe(value)}`)
  }
  return { type: 'video_url', video_url: { url } }
}

function bytesOf(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const bytes = (value as { bytes?: unknown }).bytes
  return bytes instanceof Uint8Array && bytes.length > 0 ? bytes : undefined
}

function urlOf(value: unknown): string | undefined {
  const raw = typeof value === 'string' ? value : (value as { path?: unknown } | null)?.path
  if (typeof raw !== 'string' || raw === '') return undefined
  return isMediaUrl(raw) ? raw : `file://${raw}`
}

function hexStart(bytes: Uint8Array): string {
  return [...bytes.subarray(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(' ')
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value instanceof Uint8Array) return `${value.length} bytes`
  const json = JSON.stringify(value) ?? String(value)
  return json.length > 60 ? `${json.slice(0, 57)}...` : json
}
