import { describe, expect, it } from 'vitest'
import { bucketProblem, parseBucketConfig, parseMmLimit } from './random-mm-config.ts'

// Vectors of the Rust port's random-mm tests (datasets/random_mm.rs).
describe('parseBucketConfig', () => {
  it('parses two buckets', () => {
    expect(parseBucketConfig('{(256,256,1): 0.5, (720,1280,1): 0.5}')).toEqual([
      { height: 256, width: 256, numFrames: 1, probability: 0.5 },
      { height: 720, width: 1280, numFrames: 1, probability: 0.5 },
    ])
  })

  it('parses one bucket with spaces inside the tuple', () => {
    expect(parseBucketConfig('{(1024, 800, 1): 1.0}')).toEqual([
      { height: 1024, width: 800, numFrames: 1, probability: 1 },
    ])
  })

  it('parses a video bucket', () => {
    expect(parseBucketConfig('{(256,256,1):0.5,(720,1280,1):0.5,(720,1280,16): 0.2}')[2]).toEqual({
      height: 720,
      width: 1280,
      numFrames: 16,
      probability: 0.2,
    })
  })

  it('names the flag and the entry for a tuple of the wrong arity', () => {
    expect(() => parseBucketConfig('{(256,256): 0.5}')).toThrow(
      '--random-mm-bucket-config has a bad entry "(256,256): 0.5": each is (height, width, frames): weight, with integers and a weight ≥ 0',
    )
  })

  it('names the entry with 0 frames or a 0 side (Python refuses 0 frames)', () => {
    expect(() => parseBucketConfig('{(256, 256, 0): 0.5}')).toThrow(
      '--random-mm-bucket-config has a bad entry "(256, 256, 0): 0.5": frames must be an integer from 1 to 65535 (got 0)',
    )
    expect(() => parseBucketConfig('{(0,256,1): 1}')).toThrow(
      '--random-mm-bucket-config has a bad entry "(0,256,1): 1": height must be an integer from 1 to 65535 (got 0)',
    )
  })

  it('rejects a missing colon, an empty dict and a non-dict', () => {
    expect(() => parseBucketConfig('{(256,256,1) 0.5}')).toThrow('has a bad entry "(256,256,1) 0.5"')
    expect(() => parseBucketConfig('{}')).toThrow(
      '--random-mm-bucket-config needs at least one (height, width, frames): weight entry',
    )
    expect(() => parseBucketConfig('[1]')).toThrow(
      '--random-mm-bucket-config must be a dict such as {(256, 256, 1): 0.5, (720, 1280, 1): 0.5} (got "[1]")',
    )
  })
})

describe('bucketProblem', () => {
  it('accepts images and videos, and names a bad side, frame count or weight', () => {
    expect(bucketProblem({ height: 8, width: 16, numFrames: 1, probability: 0 })).toBeUndefined()
    expect(bucketProblem({ height: 8, width: 16, numFrames: 16, probability: 0.3 })).toBeUndefined()
    expect(bucketProblem({ height: 8, width: 70000, numFrames: 1, probability: 1 })).toBe(
      'width must be an integer from 1 to 65535 (got 70000)',
    )
    expect(bucketProblem({ height: 8, width: 8, numFrames: 2.5, probability: 1 })).toBe(
      'frames must be an integer from 1 to 65535 (got 2.5)',
    )
    expect(bucketProblem({ height: 8, width: 8, numFrames: 2, probability: -1 })).toBe(
      'the weight must be a number ≥ 0 (got -1)',
    )
  })
})

describe('parseMmLimit', () => {
  it('reads both keys, and defaults missing ones to 255 images and 1 video', () => {
    expect(parseMmLimit('{"image": 3, "video": 0}')).toEqual({ image: 3, video: 0 })
    expect(parseMmLimit('{}')).toEqual({ image: 255, video: 1 })
  })

  it('names the flag for bad JSON, unknown keys and bad caps', () => {
    expect(() => parseMmLimit('image=3')).toThrow(
      '--random-mm-limit-mm-per-prompt must be a JSON object such as {"image": 3, "video": 0} (got "image=3")',
    )
    expect(() => parseMmLimit('{"audio": 1}')).toThrow(
      '--random-mm-limit-mm-per-prompt knows the keys "image" and "video" (got "audio")',
    )
    expect(() => parseMmLimit('{"image": -1}')).toThrow(
      '--random-mm-limit-mm-per-prompt "image" must be an integer ≥ 0 (got -1)',
    )
  })
})
