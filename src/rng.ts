/**
 * Seeded pseudo-random numbers shared by datasets and schedules. Runs are reproducible for a
 * given `--seed`; they are not bit-compatible with numpy (neither is the Rust port).
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number
  /** Uniform integer in [min, max] inclusive. */
  int(min: number, max: number): number
  /** Standard normal. */
  normal(): number
  /** Gamma(shape, scale), mean shape × scale. */
  gamma(shape: number, scale: number): number
  /** Exponential with the given mean. */
  exponential(mean: number): number
  /** Fisher–Yates shuffle in place. */
  shuffle<T>(items: T[]): T[]
}

/** xoshiro128** seeded through splitmix32, so nearby seeds give unrelated streams. */
export function createRng(seed: number): Rng {
  let s = (seed >>> 0) ^ Math.floor(seed / 2 ** 32)
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) | 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
    return (z ^ (z >>> 16)) >>> 0
  }
  let a = splitmix()
  let b = splitmix()
  let c = splitmix()
  let d = splitmix()
  const nextU32 = (): number => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0
    const t = b << 9
    c ^= a
    d ^= b
    b ^= c
    a ^= d
    c ^= t
    d = rotl(d, 11)
    return result
  }
  const next = (): number => (nextU32() * 2 ** 21 + (nextU32() >>> 11)) / 2 ** 53
  let spareNormal: number | undefined
  const normal = (): number => {
    if (spareNormal !== undefined) {
      const value = spareNormal
      spareNormal = undefined
      return value
    }
    let u = 0
    let v = 0
    let q = 0
    do {
      u = next() * 2 - 1
      v = next() * 2 - 1
      q = u * u + v * v
    } while (q === 0 || q >= 1)
    const factor = Math.sqrt((-2 * Math.log(q)) / q)
    spareNormal = v * factor
    return u * factor
  }
  // Marsaglia–Tsang; shape < 1 uses the boost gamma(shape + 1) · U^(1/shape).
  const gamma = (shape: number, scale: number): number => {
    if (shape < 1) return gamma(shape + 1, scale) * next() ** (1 / shape)
    const dd = shape - 1 / 3
    const cc = 1 / Math.sqrt(9 * dd)
    for (;;) {
      let x = 0
      let v = 0
      do {
        x = normal()
        v = 1 + cc * x
      } while (v <= 0)
      v = v * v * v
      const u = next()
      if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + dd * (1 - v + Math.log(v)))
        return dd * v * scale
    }
  }
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    normal,
    gamma,
    exponential: (mean) => -Math.log(1 - next()) * mean,
    shuffle: (items) => {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        const tmp = items[i]!
        items[i] = items[j]!
        items[j] = tmp
      }
      return items
    },
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k))
}
