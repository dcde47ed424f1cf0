import { describe, expect, it } from 'vitest'
import { imageRefUrl, isMediaUrl, loadImageAsDataUrl } from './image-ref.ts'

describe('image references', () => {
  it('tells URLs from paths the same way for every dataset', () => {
    for (const url of [
      'http://x.org/a.png',
      'https://x.org/a.png',
      'file:///a.png',
      'data:video/mp4;base64,AA==',
    ]) {
      expect(isMediaUrl(url)).toBe(true)
    }
    for (const path of ['a.png', '/data/a.png', 'data/a.png', 'ftp.png']) expect(isMediaUrl(path)).toBe(false)
  })

  it('sends URLs, data URLs included, as they are and paths as file:// URLs resolved against the folder', () => {
    expect(imageRefUrl('data:image/png;base64,Zm9v', '/base')).toBe('data:image/png;base64,Zm9v')
    expect(imageRefUrl('https://x.org/a.png', '/base')).toBe('https://x.org/a.png')
    expect(imageRefUrl('pics/a.png', '/base')).toBe('file:///base/pics/a.png')
    expect(imageRefUrl('/abs/a.png', '/base')).toBe('file:///abs/a.png')
  })

  it('returns a data URL as it is when loading images on the client', async () => {
    await expect(loadImageAsDataUrl('data:image/gif;base64,R0lG')).resolves.toBe('data:image/gif;base64,R0lG')
  })
})
