/**
 * Image files as bytes: their type read from the first bytes, and the base64 data URL a chat
 * message carries them in. Shared by every dataset that sends an image file as it is stored (hf
 * image families, ShareGPT's `image` field, `custom_image` with `--custom-ensure-client-side-data`).
 */

/** The formats {@link sniffImageMime} recognises, for error messages. */
export const KNOWN_IMAGE_FORMATS = 'JPEG, PNG, GIF, WebP, BMP or TIFF'

/** The image type of some bytes from their signature; undefined when none matches. */
export function sniffImageMime(bytes: Uint8Array): string | undefined {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b)
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg'
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png'
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif'
  if (starts(0x52, 0x49, 0x46, 0x46) && [0x57, 0x45, 0x42, 0x50].every((b, i) => bytes[8 + i] === b))
    return 'image/webp'
  if (starts(0x42, 0x4d)) return 'image/bmp'
  if (starts(0x49, 0x49, 0x2a, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2a)) return 'image/tiff'
  return undefined
}

/** A base64 data URL. */
export function dataUrl(mime: string, bytes: Uint8Array): string {
  return `data:${mime};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')}`
}
