import { describe, expect, it } from 'vitest'
import { type BodyRangeHandler, Exchange } from './exchange.ts'

const options: ConstructorParameters<typeof Exchange>[1] = {
  origin: 'http://127.0.0.1:1',
  path: '/',
  method: 'POST',
}
const read = Buffer.from('5\r\nhello\r\n')

describe('Exchange body pieces', () => {
  it('hands a plain handler a view of the range', () => {
    const got: string[] = []
    const exchange = new Exchange('head', options, {
      onResponseData: (_controller, chunk) => {
        got.push(chunk.toString())
      },
    })
    exchange.responseData(read, 3, 8)
    expect(got).toEqual(['hello'])
  })

  it('hands a range handler the range itself, and onResponseData nothing', () => {
    const got: Array<[Buffer, number, number]> = []
    const handler: BodyRangeHandler = {
      onResponseBytes: (_controller, bytes, start, end) => {
        got.push([bytes, start, end])
      },
      onResponseData: () => expect.unreachable('a range handler got a view'),
    }
    const exchange = new Exchange('head', options, handler)
    exchange.responseData(read, 3, 8)
    expect(got).toHaveLength(1)
    expect(got[0]![0]).toBe(read)
    expect(got[0]!.slice(1)).toEqual([3, 8])
    exchange.end()
    exchange.responseData(read, 3, 8)
    expect(got).toHaveLength(1)
  })
})
