/**
 * An RGB drawing surface for servebench's own figures: filled and alpha-blended rectangles,
 * one-pixel lines and bitmap-font text (horizontal, or rotated a quarter turn for y-axis labels).
 * Coordinates are integer device pixels from the top left; everything is clipped to the canvas.
 */
import { GLYPH_ADVANCE, GLYPH_HEIGHT, GLYPH_WIDTH, glyph, textWidth } from './bitmap-font.ts'
import type { RgbImage } from './png.ts'

/** A colour as `[red, green, blue]`, each 0–255. */
export type Rgb = readonly [number, number, number]

/** Where a text's anchor sits along it: its start, its middle or its end. */
export type TextAlign = 'start' | 'middle' | 'end'

export class Canvas implements RgbImage {
  readonly width: number
  readonly height: number
  readonly pixels: Uint8Array

  constructor(width: number, height: number, background: Rgb = [255, 255, 255]) {
    this.width = width
    this.height = height
    this.pixels = new Uint8Array(width * height * 3)
    this.fillRect(0, 0, width, height, background)
  }

  /** The colour at (x, y). */
  get(x: number, y: number): Rgb {
    const i = (y * this.width + x) * 3
    return [this.pixels[i]!, this.pixels[i + 1]!, this.pixels[i + 2]!]
  }

  /** Fills the rectangle of `w`×`h` pixels at (x, y); `alpha` < 1 blends over what is there. */
  fillRect(x: number, y: number, w: number, h: number, color: Rgb, alpha = 1): void {
    const x0 = Math.max(0, Math.round(x))
    const y0 = Math.max(0, Math.round(y))
    const x1 = Math.min(this.width, Math.round(x + w))
    const y1 = Math.min(this.height, Math.round(y + h))
    for (let py = y0; py < y1; py++) {
      for (let px = x0; px < x1; px++) this.blend(px, py, color, alpha)
    }
  }

  /** A one-pixel outline of the rectangle. */
  strokeRect(x: number, y: number, w: number, h: number, color: Rgb): void {
    this.fillRect(x, y, w, 1, color)
    this.fillRect(x, y + h - 1, w, 1, color)
    this.fillRect(x, y, 1, h, color)
    this.fillRect(x + w - 1, y, 1, h, color)
  }

  /** A straight line from (x0, y0) to (x1, y1), `width` pixels thick (squares stamped along it). */
  line(x0: number, y0: number, x1: number, y1: number, color: Rgb, width = 2): void {
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0))))
    const half = width / 2
    for (let i = 0; i <= steps; i++) {
      const x = x0 + ((x1 - x0) * i) / steps
      const y = y0 + ((y1 - y0) * i) / steps
      this.fillRect(x - half, y - half, width, width, color)
    }
  }

  /** A filled disc of radius `r` centred on (cx, cy); `alpha` < 1 blends over what is there. */
  disc(cx: number, cy: number, r: number, color: Rgb, alpha = 1): void {
    const x0 = Math.max(0, Math.floor(cx - r))
    const x1 = Math.min(this.width - 1, Math.ceil(cx + r))
    const y0 = Math.max(0, Math.floor(cy - r))
    const y1 = Math.min(this.height - 1, Math.ceil(cy + r))
    for (let py = y0; py <= y1; py++) {
      for (let px = x0; px <= x1; px++) {
        if ((px - cx) ** 2 + (py - cy) ** 2 <= r * r) this.blend(px, py, color, alpha)
      }
    }
  }

  /**
   * Draws `text` with its top at `y` and its anchor at `x` (per `align`), each font pixel a
   * `scale`×`scale` square. Returns the width drawn.
   */
  text(
    x: number,
    y: number,
    text: string,
    options: { scale: number; color: Rgb; align?: TextAlign },
  ): number {
    const { scale, color } = options
    const width = textWidth(text, scale)
    const left = Math.round(x - anchorOffset(width, options.align ?? 'start'))
    let pen = left
    for (const char of text) {
      const rows = glyph(char)
      for (let r = 0; r < GLYPH_HEIGHT; r++) {
        for (let c = 0; c < GLYPH_WIDTH; c++) {
          if (rows[r]![c]) this.fillRect(pen + c * scale, y + r * scale, scale, scale, color)
        }
      }
      pen += GLYPH_ADVANCE * scale
    }
    return width
  }

  /**
   * Draws `text` turned a quarter turn anticlockwise (read bottom to top, as a y-axis label),
   * with its left edge (the glyph tops) at `x` and its anchor at `y` along the text.
   */
  verticalText(
    x: number,
    y: number,
    text: string,
    options: { scale: number; color: Rgb; align?: TextAlign },
  ): void {
    const { scale, color } = options
    const length = textWidth(text, scale)
    // The text starts at the bottom: its start is `y + offset` and it runs upwards.
    const bottom = Math.round(y + anchorOffset(length, options.align ?? 'start'))
    let pen = bottom
    for (const char of text) {
      const rows = glyph(char)
      for (let r = 0; r < GLYPH_HEIGHT; r++) {
        for (let c = 0; c < GLYPH_WIDTH; c++) {
          if (rows[r]![c]) this.fillRect(x + r * scale, pen - (c + 1) * scale, scale, scale, color)
        }
      }
      pen -= GLYPH_ADVANCE * scale
    }
  }

  private blend(x: number, y: number, color: Rgb, alpha: number): void {
    const i = (y * this.width + x) * 3
    for (let k = 0; k < 3; k++) {
      this.pixels[i + k] =
        alpha >= 1 ? color[k]! : Math.round(color[k]! * alpha + this.pixels[i + k]! * (1 - alpha))
    }
  }
}

function anchorOffset(length: number, align: TextAlign): number {
  return align === 'start' ? 0 : align === 'middle' ? length / 2 : length
}
