import { readFile } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'

/** The image formats `--custom-ensure-client-side-data` recognises by their first bytes. */
const SIGNATURES: ReadonlyArray<{ mime: string; test(bytes: Buffer): boolean }> = [
  { mime: 'image/png', test: (b) => b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex')) },
  { mime: 'image/jpeg', test: (b) => b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { mime: 'image/gif', test: (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString('latin1')) },
  {
    mime: 'image/webp',
    test: (b) =>
      b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  },
  { mime: 'image/bmp', test: (b) => b.length >= 14 && b.subarray(0, 2).toString('latin1') === 'BM' },
]

const URL_SCHEMES = ['http://', 'https://', 'file://', 'data:image/'] as const

/**
 * The URL an image reference is sent as (Python `process_image`): URLs and `data:image/` URLs as
 * they are, a path as `file://` + the path. Deviation: a relative path is first resolved against
 * `baseDir` (the JSONL file's folder); Python prepends `file://` to it as written, which a server
 * reads as a host name.
 */
export function imageRefUrl(ref: string, baseDir: string): string {
  if (URL_SCHEMES.some((scheme) => ref.startsWith(scheme))) return ref
  return `file://${isAbsolute(ref) ? ref : resolve(baseDir, ref)}`
}

/** Why an image could not be loaded on the client; the caller adds the dataset, file and line. */
export class ImageLoadError extends Error {
  override name = 'ImageLoadError'
}

/**
 * Loads the image behind a `file://` or `http(s)://` URL and returns it as a base64 data URL
 * (`--custom-ensure-client-side-data`); a `data:image/` URL is returned as it is. Deviation:
 * Python decodes the image and re-encodes it as PNG; servebench sends the file's own bytes under
 * the MIME type of its format (PNG, JPEG, GIF, WebP, BMP), the same pixels without a decoder.
 * Throws an {@link ImageLoadError} for a missing file, an HTTP failure or bytes of no known format.
 */
export async function loadImageAsDataUrl(url: string): Promise<string> {
  if (url.startsWith('data:image/')) return url
  const bytes = url.startsWith('file://') ? await readLocal(url) : await download(url)
  const format = SIGNATURES.find((signature) => signature.test(bytes))
  if (format === undefined) throw new ImageLoadError('not a PNG, JPEG, GIF, WebP or BMP image')
  return `data:${format.mime};base64,${bytes.toString('base64')}`
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
    return Buffer.from(await body.arrayBuffer())
  }
  throw new ImageLoadError(`more than ${MAX_REDIRECTS} redirects`)
}
