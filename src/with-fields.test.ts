import { describe, expect, it } from 'vitest'
import { withFields } from './with-fields.ts'

describe('withFields', () => {
  it('copies the base and its own fields, the fields winning, and leaves the base as it was', () => {
    const base = { a: 1, b: 'two', c: [3] }
    const copy = withFields(base, { b: 'second', d: 4 })
    expect(copy).toEqual({ a: 1, b: 'second', c: [3], d: 4 })
    expect(Object.keys(copy)).toEqual(['a', 'b', 'c', 'd'])
    expect(base).toEqual({ a: 1, b: 'two', c: [3] })
    expect(copy.c).toBe(base.c)
  })
})
