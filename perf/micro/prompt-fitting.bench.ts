/**
 * Prompt fitting: the decode → re-encode loop that gives each random prompt its exact token count
 * (datasets/decode-to-target.ts), under the built-in cl100k_base encoding. Run: `npm run perf:micro`.
 */
import { bench, describe } from 'vitest'
import { decodeToTargetLen } from '../../src/datasets/decode-to-target.ts'
import { createRng } from '../../src/rng.ts'
import { loadTokenizer } from '../../src/tokenizer/index.ts'

const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
const allowed = tokenizer.allowedTokenIds()
const rng = createRng(3)
const ids = (n: number): number[] => Array.from({ length: n }, () => allowed[rng.int(0, allowed.length - 1)]!)
const short = ids(256)
const long = ids(4_096)

describe('prompt fitting (cl100k_base)', () => {
  bench('256-token prompt', async () => {
    await decodeToTargetLen(tokenizer, short, 256, allowed)
  })
  bench('4,096-token prompt', async () => {
    await decodeToTargetLen(tokenizer, long, 4_096, allowed)
  })
})
