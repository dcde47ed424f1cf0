import { describe, expect, it } from 'vitest'
import { drawFacetFigure, framePixel, PALETTE, scaled } from './facet-figure.ts'

describe('the facet figure of sweep plot and plot_pareto', () => {
  it('draws one panel per row and column, each curve in its palette colour at its points', () => {
    const { image, frames, legend } = drawFacetFigure({
      rows: [
        [
          {
            title: 'a=1',
            series: [
              {
                label: 'c=1',
                points: [
                  [1, 10],
                  [2, 20],
                ],
              },
            ],
          },
          { title: 'a=2', series: [{ label: 'c=2', points: [[1, 15]] }] },
        ],
        [{ title: 'a=3', series: [{ label: 'c=1', points: [[2, 5]] }] }],
      ],
      xLabel: 'x',
      yLabel: 'y',
    })
    expect(frames).toHaveLength(3)
    expect(legend).toEqual(['c=1', 'c=2'])
    const [px, py] = framePixel(frames[0]!, 2, 20).map(Math.round) as [number, number]
    expect(image.get(px, py)).toEqual(PALETTE[0])
    const [qx, qy] = framePixel(frames[1]!, 1, 15).map(Math.round) as [number, number]
    expect(image.get(qx, qy)).toEqual(PALETTE[1])
  })

  it('leaves out what a log axis cannot show', () => {
    expect(scaled(100, 'log')).toBe(2)
    expect(scaled(0, 'log')).toBeUndefined()
    expect(scaled(Number.POSITIVE_INFINITY, 'linear')).toBeUndefined()
    expect(scaled(9, 'sqrt')).toBe(3)
  })
})
