import { dirname, resolve } from 'node:path'
import type { BackendName } from '../../config/bench-config.ts'
import { type DatasetFlagContext, requireJsonl, requirePath } from '../../config/dataset-flag-checks.ts'
import { f } from '../../config/dsl-fields.ts'
import type { ChatContentPart, MultiModalPart, SampleRequest } from '../../config/records.ts'
import type { Reader } from '../../config/resolve.ts'
import { DatasetError } from '../../errors.ts'
import { defineDataset, flagRow } from '../dataset-module.ts'
import { ImageLoadError, imageRefUrl, loadImageAsDataUrl } from '../image-ref.ts'
import type { TokenizerFreeContext } from '../index.ts'
import { fieldError, oversample, shuffled, typeName } from '../sampling.ts'
import {
  ENABLE_MULTIMODAL_CHAT,
  ORDER_FLAGS,
  type OrderConfig,
  orderedFileFields,
  readOrder,
} from '../shared-flags.ts'
import { CUSTOM_OUTPUT_LEN, readCustomJsonl, readCustomOutputLen } from './custom-lines.ts'

/** `--dataset-name custom_image`: JSONL lines of `prompt` + `image_files`, or interleaved `content` parts. */
export interface CustomImageDatasetConfig extends OrderConfig {
  kind: 'custom_image'
  path: string
  /** `--custom-output-len`. */
  outputLen: number
  /** `--custom-ensure-client-side-data`: load local and http(s) images here and send them as base64 data URLs. */
  ensureClientSideData: boolean
  /** `--enable-multimodal-chat`: accepted; the request body is the same either way. */
  enableMultimodalChat: boolean
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

const ENSURE_CLIENT_SIDE_DATA = flagRow(
  '--custom-ensure-client-side-data',
  'boolean',
  'custom_image: load local and http(s) images on the client and send them as base64 data URLs.',
  { parity: 'python' },
)

/** `--dataset-name custom_image`: JSONL prompts with images, or interleaved parts, for `openai-chat`. */
export const customImageDataset = defineDataset<CustomImageDatasetConfig, CustomImageDatasetOptions>({
  kind: 'custom_image',
  summary: 'your JSONL prompts with images, or interleaved text and images (`openai-chat`)',
  datasetName: 'custom_image',
  builder: 'customImage',
  fields: orderedFileFields<CustomImageDatasetOptions>({
    outputLen: f(CUSTOM_OUTPUT_LEN.name),
    ensureClientSideData: f(ENSURE_CLIENT_SIDE_DATA.name, 'switch'),
    enableMultimodalChat: f(ENABLE_MULTIMODAL_CHAT.name, 'switch'),
  }),
  flags: [CUSTOM_OUTPUT_LEN, ENSURE_CLIENT_SIDE_DATA, ENABLE_MULTIMODAL_CHAT, ...ORDER_FLAGS],
  resolve: resolveCustomImageFlags,
  generate: generateCustomImage,
})

const NEEDS_CHAT = (backend: BackendName): string =>
  `custom_image needs --backend openai-chat (it sends images in chat messages); got --backend ${backend}`

/** The path, `--custom-output-len` (at least 1) and the image switches. */
function resolveCustomImageFlags(read: Reader, context: DatasetFlagContext): CustomImageDatasetConfig {
  const { backend, issues } = context
  if (backend !== 'openai-chat') issues.push({ path: '--dataset-name', message: NEEDS_CHAT(backend) })
  const path = requirePath(read, 'custom_image', 'a .jsonl file', issues)
  requireJsonl(path, issues)
  return {
    kind: 'custom_image',
    path,
    outputLen: readCustomOutputLen(read, issues, false),
    ensureClientSideData: read.bool(ENSURE_CLIENT_SIDE_DATA.name),
    enableMultimodalChat: read.bool(ENABLE_MULTIMODAL_CHAT.name),
    ...readOrder(read),
  }
}

const NAME = 'custom_image'

/** One line before its images are loaded: the text prompt with its images, or interleaved parts. */
type ImageLine =
  | { line: number; form: 'prompt'; prompt: string; images: string[] }
  | { line: number; form: 'content'; parts: RawPart[] }

/** A content part as written: text, or an image reference with any extra `image_url` keys (`detail`). */
type RawPart = { type: 'text'; text: string } | { type: 'image'; ref: string; extra: Record<string, unknown> }

/**
 * The `custom_image` dataset (Python: `CustomImageDataset`). Each JSONL line is either
 * `{"prompt": str, "image_files": [str, ...]}` (the images follow the text in the user message) or
 * `{"content": [parts]}` with `{"type": "text", "text"}`, `{"type": "image", "image"}` and
 * `{"type": "image_url", "image_url": str | {"url", ...}}` parts, sent in their order. Lines are
 * shuffled with the seed (unless `disableShuffle`), the first `numPrompts` are taken and repeated
 * up to `numPrompts` unless `noOversample`. Images are sent by reference (a path becomes a
 * `file://` URL) or, with `ensureClientSideData`, loaded here and sent as base64 data URLs.
 * `promptLen` counts the text with special tokens (no chat template, as Python); without a
 * tokenizer (`--skip-tokenizer-init`) it is 1. Every request asks for `outputLen` tokens.
 */
export async function generateCustomImage(
  config: CustomImageDatasetConfig,
  context: TokenizerFreeContext,
): Promise<SampleRequest[]> {
  const { path } = config
  const lines = (await readCustomJsonl(NAME, path)).map(({ line, value }) => parseLine(path, line, value))
  const picked = shuffled(lines, context.seed, config.disableShuffle).slice(0, context.numPrompts)
  const baseDir = dirname(resolve(path))
  const loaded = new Map<string, Promise<string>>()
  const imageUrl = (ref: string, line: number): Promise<string> => {
    const url = imageRefUrl(ref, baseDir)
    if (!config.ensureClientSideData) return Promise.resolve(url)
    let pending = loaded.get(url)
    if (pending === undefined) {
      pending = loadImageAsDataUrl(url)
      loaded.set(url, pending)
    }
    return pending.catch((error: unknown) => {
      if (!(error instanceof ImageLoadError)) throw error
      throw new DatasetError(`${NAME}: ${path}:${line}: cannot load image ${url}: ${error.message}`, {
        cause: error,
      })
    })
  }
  const countTokens = async (text: string): Promise<number> =>
    context.tokenizer === undefined
      ? 1
      : (await context.tokenizer.encode(text, { addSpecialTokens: true })).length

  const requests: SampleRequest[] = []
  for (const entry of picked) {
    if (entry.form === 'prompt') {
      const multiModalContent: MultiModalPart[] = []
      for (const ref of entry.images) {
        multiModalContent.push({ type: 'image_url', image_url: { url: await imageUrl(ref, entry.line) } })
      }
      requests.push({
        prompt: entry.prompt,
        promptLen: await countTokens(entry.prompt),
        expectedOutputLen: config.outputLen,
        multiModalContent,
      })
      continue
    }
    const content: ChatContentPart[] = []
    for (const part of entry.parts) {
      if (part.type === 'text') content.push(part)
      else
        content.push({
          type: 'image_url',
          image_url: { url: await imageUrl(part.ref, entry.line), ...part.extra },
        })
    }
    const text = entry.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')
    requests.push({
      prompt: text,
      promptLen: await countTokens(text),
      expectedOutputLen: config.outputLen,
      chatMessages: [{ role: 'user', content }],
    })
  }
  return oversample(requests, context.numPrompts, context.seed, config.noOversample)
}

/** Checks one line's fields (every line, before sampling), naming the file, line and field. */
function parseLine(path: string, line: number, value: Record<string, unknown>): ImageLine {
  if ('content' in value) return { line, form: 'content', parts: parseContent(path, line, value.content) }
  if (!('prompt' in value) || !('image_files' in value)) {
    throw new DatasetError(
      `${NAME}: ${path}:${line}: each line needs "prompt" and "image_files", or "content" (interleaved text and image parts)`,
    )
  }
  const { prompt, image_files: images } = value
  if (typeof prompt !== 'string')
    throw fieldError(NAME, path, line, 'prompt', `must be a string (got ${typeName(prompt)})`)
  if (!Array.isArray(images) || images.length === 0)
    throw fieldError(NAME, path, line, 'image_files', 'must be a non-empty list of image paths or URLs')
  images.forEach((ref, i) => {
    if (typeof ref !== 'string' || ref === '')
      throw fieldError(
        NAME,
        path,
        line,
        `image_files[${i}]`,
        `must be a path or URL (got ${JSON.stringify(ref)})`,
      )
  })
  return { line, form: 'prompt', prompt, images: images as string[] }
}

function parseContent(path: string, line: number, content: unknown): RawPart[] {
  if (!Array.isArray(content) || content.length === 0)
    throw fieldError(NAME, path, line, 'content', 'must be a non-empty list of text and image parts')
  return content.map((part: unknown, i): RawPart => {
    const field = `content[${i}]`
    if (part === null || typeof part !== 'object' || Array.isArray(part))
      throw fieldError(NAME, path, line, field, `must be an object (got ${typeName(part)})`)
    const record = part as Record<string, unknown>
    const type = record.type
    if (type === 'text') {
      if (typeof record.text !== 'string')
        throw fieldError(NAME, path, line, `${field}.text`, `must be a string (got ${typeName(record.text)})`)
      return { type: 'text', text: record.text }
    }
    if (type === 'image') {
      if (typeof record.image !== 'string' || record.image === '')
        throw fieldError(NAME, path, line, `${field}.image`, 'must be an image path or URL')
      return { type: 'image', ref: record.image, extra: {} }
    }
    if (type === 'image_url') {
      const imageUrl = record.image_url
      if (typeof imageUrl === 'string' && imageUrl !== '') return { type: 'image', ref: imageUrl, extra: {} }
      if (imageUrl !== null && typeof imageUrl === 'object' && !Array.isArray(imageUrl)) {
        const { url, ...extra } = imageUrl as Record<string, unknown>
        if (typeof url === 'string' && url !== '') return { type: 'image', ref: url, extra }
      }
      throw fieldError(
        NAME,
        path,
        line,
        `${field}.image_url`,
        'must be a URL string or an object with a string "url"',
      )
    }
    throw fieldError(
      NAME,
      path,
      line,
      `${field}.type`,
      `must be "text", "image" or "image_url" (got ${JSON.stringify(type) ?? 'nothing'})`,
    )
  })
}
