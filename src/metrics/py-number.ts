/**
 * Python's text forms of numbers, so that file names, result keys and console rows read exactly as
 * `vllm bench serve` writes them.
 */

/**
 * Python `repr(float)` / `str(float)`: the shortest round-trip digits, `10.0` rather than `10`,
 * exponent form below 1e-4 and from 1e16 (`1e-05`, `1e+16`), `inf`, `-inf`, `nan`.
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (x === Number.POSITIVE_INFINITY) return 'inf'
  if (x === Number.NEGATIVE_INFINITY) return '-inf'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const sign = x < 0 ? '-' : ''
  // toExponential() without an argument yields the shortest digits that round-trip, as Python does.
  const [mantissa = '', expText = '0'] = Math.abs(x).toExponential().split('e')
  const digits = mantissa.replace('.', '')
  const exp = Number(expText)
  if (exp < -4 || exp >= 16) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : ''
    const expAbs = String(Math.abs(exp)).padStart(2, '0')
    return `${sign}${digits[0]}${frac}e${exp < 0 ? '-' : '+'}${expAbs}`
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0')
  const fracPart = digits.slice(exp + 1)
  return `${sign}${intPart}.${fracPart === '' ? '0' : fracPart}`
}

/**
 * Python `format(x, '.{digits}f')`. JS `toFixed` rounds exact ties (0.125) away from zero, Python to
 * even (`0.12`); every other value is rounded from its exact binary value by both.
 */
export function pyFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'nan'
  if (x === Number.POSITIVE_INFINITY) return 'inf'
  if (x === Number.NEGATIVE_INFINITY) return '-inf'
  const negative = x < 0 || Object.is(x, -0)
  const abs = Math.abs(x)
  let text: string
  if (abs >= 1e21) {
    // toFixed switches to exponent form here; such doubles are integers, so BigInt is exact.
    text = BigInt(abs).toString() + (digits > 0 ? `.${'0'.repeat(digits)}` : '')
  } else {
    text = abs.toFixed(digits)
    // An exact tie at `digits` decimals is exactly an odd multiple of 2^-(digits+1).
    const scaled = abs * 2 ** (digits + 1)
    if (Number.isInteger(scaled) && scaled % 2 === 1 && Number(text.at(-1)) % 2 === 1) {
      // toFixed rounded up to an odd digit; the even neighbour is the truncated value.
      text = abs.toFixed(digits + 1).slice(0, -1)
      if (text.endsWith('.')) text = text.slice(0, -1)
    }
  }
  return negative ? `-${text}` : text
}
