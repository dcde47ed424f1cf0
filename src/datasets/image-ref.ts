import { readFile } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { AUX_BODY_LIMITS, readBodyCapped } from '../response-body.ts'
import { dataUrl, KNOWN_IMAGE_FORMATS, sniffImageMime } from './image-bytes.ts'

const URL_PREFIXES = ['http://', 'https://', 'file://', 'data:'] as const

/**
 * Whether a media reference is a URL the server is given as it is, rather than a local path
 * (Python `process_image` / `process_video`). Shared by every dataset that reads image or video
 * references (hf image families, ShareGPT, custom_image), so they agree on what a path is.
 * Deviation: a `data:` URL counts as a URL; Python prepends `file://` to it.
 */
export function isMediaUrl(ref: string): boolean {
  return URL_PREFIXES.some((prefix) => ref.startsWith(prefix))
}

/**
 * The URL an image reference is sent as (Python `process_image`): a URL ({@link isMediaUrl}) as it
 * is, a path as `file://` + the path. Deviation: a relative path is first resolved against
 * `baseDir` (the JSONL file's folder); Python prepends `file://` to it as written, which a server
 * reads as a host name.
 */
export function imageRefUrl(ref: string, baseDir: string): string {
  if (isMediaUrl(ref)) return ref
  return `file://${isAbsolute(ref) ? ref : resolve(baseDir, ref)}`
}

/** Why an image could not be loaded on the client; the caller adds the dataset, file and line. */
export class ImageLoadError extends Error {
  override name = 'ImageLoadError'
}

/**
 * Loads the image behind a `file://` or `http(s)://` URL and returns it as a base64 data URL
 * (`--custom-ensure-client-side-data`); a `data:` URL is returned as it is. Deviation:
 * Python decodes the image and re-encodes it as PNG; servebench sends the file's own bytes under
 * the MIME type of its format (JPEG, PNG, GIF, WebP, BMP, TIFF), the same pixels without a decoder.
 * Throws an {@link ImageLoadError} for a missing file, an HTTP failure or bytes of no known format.
 */
export async function loadImageAsDataUrl(url: string): Promise<string> {
  if (url.startsWith('data:')) return url
  const bytes = url.startsWith('file://') ? await readLocal(url) : await download(url)
  const mime = sniffImageMime(bytes)
  if (mime === undefined) throw new ImageLoadError(`not a ${KNOWN_IMAGE_FORMATS} image`)
  return dataUrl(mime, bytes)
}

async function readLocal(url: string): Promise<Buffer> {
  let path: string
  try {
    path = fileURLToPath(url)
  } catch (error) {
    throw new ImageLoadError(`not a local file URL (${(error as Error).message})`, { cause: error })
  }
  try {
    return await readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : 'cannot be read'
    throw new ImageLoadError(`${why}: ${path}`, { cause: error })
  }
}

const MAX_REDIRECTS = 5

async function download(url: string): Promise<Buffer> {
  let target = url
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    let response: Awaited<ReturnType<typeof request>>
    try {
      response = await request(target, { method: 'GET' })
    } catch (error) {
      throw new ImageLoadError(`cannot download it (${(error as Error).message})`, { cause: error })
    }
    const { statusCode, headers, body } = response
    const location = headers.location
    if (statusCode >= 300 && statusCode < 400 && typeof location === 'string') {
      await body.dump()
      target = new URL(location, target).href
      continue
    }
    if (statusCode !== 200) {
      await body.dump()
      throw new ImageLoadError(`the server answered HTTP ${statusCode}`)
    }
    try {
      return await readBodyCapped(body, AUX_BODY_LIMITS.imageBytes, `GET ${target}`, {
        contentLength: headers['content-length'],
      })
    } catch (error) {
      throw new ImageLoadError(`cannot download it (${(error as Error).message})`, { cause: error })
    }
  }
  throw new ImageLoadError(`more than ${MAX_REDIRECTS} redirects`)
}
