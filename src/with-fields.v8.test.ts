import { describe, expect, it } from 'vitest'
import { hiddenClassCount } from '../test/hidden-class.ts'
import { withFields } from './with-fields.ts'

describe('withFields', () => {
  it('gives copies made the same way one hidden class, whatever classes their bases have', () => {
    // Each base is a spread with a field of its own: on Node 20 each has a class of its own. The
    // numbers are all fractions, as a request's times are: a field that held a small integer first
    // would move the class on once, when V8 widens the field.
    const bases = Array.from({ length: 50 }, (_, i) => ({
      ...{ id: `r${i}`, text: `t${i}` },
      startS: i + 0.5,
    }))
    const copies = bases.map((base, i) => withFields(base, { slot: `s${i}`, queueS: i + 0.25 }))
    expect(hiddenClassCount(copies)).toBe(1)
  })
})
