/**
 * Puts results on disk: with write-safe.ts, run-files.ts, summary-files.ts and run-folder.ts, the
 * files layer is the only part of servebench that writes results (test/layering.test.ts checks it).
 * Python: main_async (vllm/benchmarks/serve.py).
 */
import { open, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { basename, dirname, isAbsolute, join } from 'node:path'
import type { OutputConfig } from '../../config/bench-config.ts'
import { toPythonJson } from '../result/py-json.ts'
import { pytorchPath } from '../result/pytorch-format.ts'
import { resultFilename, resultForFile } from '../result/result-json.ts'
import type { AnyBenchResult } from '../result/run-result.ts'
import type { SegmentFile } from '../result/segment-file.ts'
import { ensureDir, writeFileAtomic } from './write-safe.ts'

/** Where {@link writeResult} puts a result: `--result-dir` joined with `--result-filename` or the default name. */
export function resultPath(
  result: AnyBenchResult,
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
  result: AnyBenchResult,
  output: Pick<OutputConfig, 'resultDir' | 'resultFilename' | 'saveDetailed' | 'appendResult'>,
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

/** Writes the PyTorch-benchmark records of a result (`SAVE_TO_PYTORCH_BENCHMARK_FORMAT`) next to it; returns the path. */
export async function writePytorchBenchmark(
  records: readonly unknown[],
  resultFile: string,
): Promise<string> {
  const path = pytorchPath(resultFile)
  await ensureDir(dirname(path))
  await writeFileAtomic(path, toPythonJson(records))
  return path
}

/**
 * The chart library the HTML report inlines (uPlot, an npm dependency): read from its package,
 * never fetched. The one read of this module.
 */
export async function readChartLibrary(): Promise<{ js: string; css: string }> {
  const require = createRequire(import.meta.url)
  const [js, css] = await Promise.all([
    readFile(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    readFile(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  ])
  return { js, css }
}

/** Writes a figure (a sweep's PNG) whole, creating its folder; returns its path. */
export async function writeFigure(path: string, png: Uint8Array): Promise<string> {
  await ensureDir(dirname(path))
  await writeFileAtomic(path, png)
  return path
}

/** Writes a report file (HTML report, CSV, PR comment) whole, creating its folder; returns its path. */
export async function writeReportFile(path: string, content: string): Promise<string> {
  await ensureDir(dirname(path))
  await writeFileAtomic(path, content)
  return path
}

/** Appends lines to the history file (created with its folder when missing); returns its path. */
export async function appendHistory(path: string, lines: string): Promise<string> {
  await ensureDir(dirname(path))
  await appendText(path, lines)
  return path
}

/**
 * Appends the Markdown summary to `$GITHUB_STEP_SUMMARY` (the file the runner gives; created when
 * missing, never its folder), so each shard of a sharded run adds its own section.
 */
export async function appendStepSummary(path: string, markdown: string): Promise<void> {
  await appendText(path, markdown)
}

async function appendText(path: string, text: string): Promise<void> {
  const file = await open(path, 'a')
  try {
    await file.write(text, null, 'utf8')
  } finally {
    await file.close()
  }
}

/** `<result name>.requests.csv` next to a result file. */
export function requestsCsvPath(resultFile: string): string {
  return withSuffix(resultFile, '.requests.csv')
}

export { checkOutputDestination } from './write-safe.ts'
