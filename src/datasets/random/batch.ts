import type { SampleRequest } from '../../config/records.ts'

/**
 * Groups consecutive requests into requests of `batchSize` inputs each, for pooling backends
 * (`--random-batch-size`): `promptList` holds the texts, `promptLen` their summed lengths, and the
 * expected output is 0. The last batch may be shorter. `batchSize <= 1` returns the list as it is.
 * Rust: batch_requests (datasets/mod.rs).
 */
export function batchRequests(requests: readonly SampleRequest[], batchSize: number): SampleRequest[] {
  if (batchSize <= 1) return [...requests]
  const out: SampleRequest[] = []
  for (let start = 0; start < requests.length; start += batchSize) {
    const batch = requests.slice(start, start + batchSize)
    out.push({
      prompt: batch[0]!.prompt,
      promptList: batch.map((r) => r.prompt),
      promptLen: batch.reduce((sum, r) => sum + r.promptLen, 0),
      expectedOutputLen: 0,
    })
  }
  return out
}
