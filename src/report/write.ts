/**
 * The only module that puts results on disk. Python: main_async (vllm/benchmarks/serve.py).
 */
import { open } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join } from 'node:path'
import type { OutputConfig } from '../config/bench-config.ts'
import { toPythonJson } from './py-json.ts'
import { resultFilename, resultForFile } from './result-json.ts'
import type { BenchResult } from './result-types.ts'
import type { SegmentFile } from './segment-file.ts'
import { ensureDir, writeFileAtomic } from './write-safe.ts'

/** Where {@link writeResult} puts a result: `--result-dir` joined with `--result-filename` or the default name. */
export function resultPath(
  result: BenchResult,
  output: Pick<OutputConfig, 'resultDir' | 'resultFilename'>,
  naming: { label?: string; maxConcurrency?: number },
): string {
  const name = output.resultFilename ?? resultFilename(result, naming)
  // Python os.path.join: an absolute file name ignores the directory.
  if (output.resultDir === undefined || isAbsolute(name)) return name
  return join(output.resultDir, name)
}

/**
 * Writes one result as Python's `json.dump` does (one line, no trailing newline) and returns its
 * path. `--result-dir` is created. With `--append-result` the file is opened for appending and a
 * `"\n"` goes first when it is not empty, so the file becomes JSON Lines. Per-request arrays are
 * kept only with `--save-detailed`. The caller decides whether to save at all.
 */
export async function writeResult(
  result: BenchResult,
  output: OutputConfig,
  naming: { label?: string; maxConcurrency?: number },
): Promise<string> {
  const path = resultPath(result, output, naming)
  if (output.resultDir !== undefined) await ensureDir(output.resultDir)
  const text = toPythonJson(resultForFile(result, output.saveDetailed))
  if (!output.appendResult) {
    await writeFileAtomic(path, text)
    return path
  }
  const file = await open(path, 'a+')
  try {
    const { size } = await file.stat()
    await file.write(size > 0 ? `\n${text}` : text, null, 'utf8')
  } finally {
    await file.close()
  }
  return path
}

/**
 * Writes a combined sweep or multi-run JSON (one line, Python's `json.dump` form) under
 * `--result-dir`, named `--result-filename` when given, else `name`; returns its path.
 */
export async function writeSummaryJson(
  value: Record<string, unknown>,
  output: Pick<OutputConfig, 'resultDir' | 'resultFilename'>,
  name: string,
): Promise<string> {
  const file = output.resultFilename ?? name
  const path = output.resultDir === undefined || isAbsolute(file) ? file : join(output.resultDir, file)
  if (output.resultDir !== undefined) await ensureDir(output.resultDir)
  await writeFileAtomic(path, toPythonJson(value))
  return path
}

/** `<result name>.timeline.html` next to a result file, as Python names the `--plot-timeline` page. */
export function timelinePath(resultFile: string): string {
  return withSuffix(resultFile, '.timeline.html')
}

// Python's `Path(file_name).with_suffix(suffix)`, which names both plots: the file name's last
// suffix (`.json`, or any other: `run.txt`) is replaced; a name without one (or a dot file) gets it added.
function withSuffix(file: string, suffix: string): string {
  const name = basename(file)
  const dot = name.lastIndexOf('.')
  const stem = dot > 0 && dot < name.length - 1 ? name.slice(0, dot) : name
  return file.slice(0, file.length - name.length) + stem + suffix
}

/** Writes a `--plot-dataset-stats` PNG next to `resultFile` (its folder is created); returns its path. */
export async function writeDatasetStats(png: Uint8Array, resultFile: string): Promise<string> {
  const path = withSuffix(resultFile, '.dataset_stats.png')
  await ensureDir(dirname(path))
  await writeFileAtomic(path, png)
  return path
}

/** Writes a `--plot-timeline` page next to `resultFile` (its folder is created); returns its path. */
export async function writeTimeline(html: string, resultFile: string): Promise<string> {
  const path = timelinePath(resultFile)
  await ensureDir(dirname(path))
  await writeFileAtomic(path, html)
  return path
}

/**
 * Writes the segment file of a `--segment i/n` run next to where its result goes
 * (`<result name>.segment-<i>-of-<n>.json`, its folder created); returns its path.
 */
export async function writeSegmentFile(segment: SegmentFile, resultFile: string): Promise<string> {
  const path = withSuffix(resultFile, `.segment-${segment.index}-of-${segment.count}.json`)
  await ensureDir(dirname(path) || '.')
  // Plain JSON: every double round-trips exactly, so the merge recomputes from the measured values.
  await writeFileAtomic(path, JSON.stringify(segment))
  return path
}

export { checkOutputDestination } from './write-safe.ts'
