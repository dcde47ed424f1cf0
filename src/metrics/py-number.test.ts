import { describe, expect, it } from 'vitest'
import { pyFixed, pyFloatRepr } from './py-number.ts'

// Expected strings are what CPython 3 prints for repr(x) and format(x, '.2f').
describe('pyFloatRepr', () => {
  it('writes whole floats with .0 and keeps shortest digits', () => {
    expect(pyFloatRepr(10)).toBe('10.0')
    expect(pyFloatRepr(0.1)).toBe('0.1')
    expect(pyFloatRepr(99.9)).toBe('99.9')
    expect(pyFloatRepr(199.76000000000005)).toBe('199.76000000000005')
    expect(pyFloatRepr(0)).toBe('0.0')
    expect(pyFloatRepr(-0)).toBe('-0.0')
  })

  it('switches to exponent form below 1e-4 and from 1e16, with two exponent digits', () => {
    expect(pyFloatRepr(0.0001)).toBe('0.0001')
    expect(pyFloatRepr(1e-5)).toBe('1e-05')
    expect(pyFloatRepr(1.5e-7)).toBe('1.5e-07')
    expect(pyFloatRepr(1e15)).toBe('1000000000000000.0')
    expect(pyFloatRepr(1e16)).toBe('1e+16')
    expect(pyFloatRepr(1.2345678901234568e17)).toBe('1.2345678901234568e+17')
    expect(pyFloatRepr(1e100)).toBe('1e+100')
  })

  it('names the non-finite values as Python does', () => {
    expect(pyFloatRepr(Number.POSITIVE_INFINITY)).toBe('inf')
    expect(pyFloatRepr(Number.NEGATIVE_INFINITY)).toBe('-inf')
    expect(pyFloatRepr(Number.NaN)).toBe('nan')
  })
})

describe('pyFixed', () => {
  it('rounds exact ties to even where toFixed rounds them up', () => {
    expect((0.125).toFixed(2)).toBe('0.13')
    expect(pyFixed(0.125, 2)).toBe('0.12')
    expect(pyFixed(0.375, 2)).toBe('0.38')
    expect(pyFixed(0.625, 2)).toBe('0.62')
    expect(pyFixed(0.875, 2)).toBe('0.88')
    expect(pyFixed(2.5, 0)).toBe('2')
    expect(pyFixed(0.5, 0)).toBe('0')
    expect(pyFixed(-0.125, 2)).toBe('-0.12')
  })

  it('rounds values that only look like ties from their binary value', () => {
    expect(pyFixed(2.675, 2)).toBe('2.67')
    expect(pyFixed(1.005, 2)).toBe('1.00')
    expect(pyFixed(199.995, 2)).toBe('200.00')
  })

  it('keeps the sign of negative values that round to zero, and prints integers with decimals', () => {
    expect(pyFixed(-0.001, 2)).toBe('-0.00')
    expect(pyFixed(-0, 2)).toBe('-0.00')
    expect(pyFixed(200, 2)).toBe('200.00')
    expect(pyFixed(1.5e22, 2)).toBe('15000000000000000000000.00')
    expect(pyFixed(Number.POSITIVE_INFINITY, 2)).toBe('inf')
  })
})
