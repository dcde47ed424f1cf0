/**
 * The one writer of a run's files, called by `servebench serve` and by the Vitest reporter: the
 * result JSON (per-request arrays only with `--save-detailed`), the `--plot-timeline` page, the
 * `--plot-dataset-stats` figure, and the combined sweep and multi-run JSON. It builds each file
 * with the pure report modules and puts it on disk through `write.ts`; the caller says what it
 * wants and prints the paths in its own words.
 */
import type { OutputConfig } from '../../config/bench-config.ts'
import { MAX_LABEL_BYTES, safeFileNamePart } from '../../file-names.ts'
import { buildTimelineHtml, type TimelineOptions } from '../html/timeline-html.ts'
import { datasetStatsInput, datasetStatsPng } from '../plot/dataset-stats-plot.ts'
import { type MultiRunSummary, multiRunJson } from '../result/multi-run.ts'
import { pytorchBenchmarkRecords } from '../result/pytorch-format.ts'
import type { AnyBenchResult, RunResult } from '../result/run-result.ts'
import type { SegmentFile } from '../result/segment-file.ts'
import { type SweepParameter, type SweepPoint, sweepJson } from '../result/sweep.ts'
import {
  resultPath,
  writeDatasetStats,
  writePytorchBenchmark,
  writeResult,
  writeSegmentFile,
  writeSummaryJson,
  writeTimeline,
} from './write.ts'

/**
 * One file of a run: its result JSON, its PyTorch-benchmark records, its segment file, its timeline
 * page or its dataset-statistics figure.
 */
export type RunFile = 'result' | 'pytorch' | 'segment' | 'timeline' | 'dataset-stats'

/** What goes into the default file names: `--label` and the concurrency of the run. */
export interface ResultNaming {
  label?: string
  maxConcurrency?: number
}

/** What {@link writeRunFiles} writes, and whom it tells. */
export interface RunFilesOptions {
  /** Folder, file name, `--save-detailed` and `--append-result` of the result file. */
  output: Pick<OutputConfig, 'resultDir' | 'resultFilename' | 'saveDetailed' | 'appendResult'>
  naming: ResultNaming
  /** Write the result JSON. */
  result: boolean
  /**
   * Also write `<result name>.pytorch.json` (Python's `SAVE_TO_PYTORCH_BENCHMARK_FORMAT`) beside the
   * written result: `args` stands for Python's `vars(args)`, already redacted. @default none
   */
  pytorch?: { args: Record<string, unknown>; model: string | null }
  /**
   * The segment file of a `--segment i/n` run, written next to where the result goes
   * (`<result name>.segment-<i>-of-<n>.json`) whether or not the result is. @default none
   */
  segment?: SegmentFile
  /**
   * Write the timeline page next to the result file (named after it whether or not it is written),
   * with these options; a pooling run has no token stream and gets none. @default false
   */
  timeline?: false | TimelineOptions
  /** Write the dataset-statistics PNG next to the result file; a run without lengths gets none. @default false */
  datasetStats?: boolean
  /** Told after each file is on disk. */
  onWritten?(file: RunFile, path: string): void
  /** Told when a file was asked for but does not apply to this run, with the reason in words. */
  onSkipped?(file: RunFile, reason: string): void
  /**
   * When given, a file that cannot be written is reported here and the next ones are still
   * written; without it the error is thrown (after the files before it were written).
   */
  onError?(file: RunFile, error: unknown): void
}

/** The paths written, by file. */
export type WrittenRunFiles = Partial<Record<RunFile, string>>

/** Writes the files of one run, in order: result, timeline, dataset statistics. Returns their paths. */
export async function writeRunFiles(run: RunResult, options: RunFilesOptions): Promise<WrittenRunFiles> {
  const written: WrittenRunFiles = {}
  const { output, naming } = options
  const attempt = async (file: RunFile, write: () => Promise<string>): Promise<void> => {
    try {
      const path = await write()
      written[file] = path
      options.onWritten?.(file, path)
    } catch (error) {
      if (!options.onError) throw error
      options.onError(file, error)
    }
  }
  if (options.result) {
    await attempt('result', () => writeResult(run.result, output, naming))
    const { pytorch } = options
    const resultFile = written.result
    if (pytorch && resultFile !== undefined)
      await attempt('pytorch', () =>
        writePytorchBenchmark(pytorchBenchmarkRecords(run.result, pytorch), resultFile),
      )
  }
  const { segment } = options
  if (segment) {
    await attempt('segment', () => writeSegmentFile(segment, resultPath(run.result, output, naming)))
  }
  const timeline = options.timeline ?? false
  if (timeline !== false) {
    if (run.kind === 'pooling') {
      options.onSkipped?.('timeline', 'a pooling run has no token stream; no timeline written')
    } else {
      const result = run.result
      await attempt('timeline', () =>
        writeTimeline(buildTimelineHtml(result, timeline), resultPath(result, output, naming)),
      )
    }
  }
  if (options.datasetStats) {
    // Python draws it from the run's input_lens and output_lens, whether or not the result is saved.
    const lens = datasetStatsInput(run.result)
    if (lens === undefined) {
      options.onSkipped?.(
        'dataset-stats',
        'the run has no input and output lengths to plot (a pooling run has no output lengths); no plot written',
      )
    } else {
      await attempt('dataset-stats', () =>
        writeDatasetStats(datasetStatsPng(lens), resultPath(run.result, output, naming)),
      )
    }
  }
  return written
}

/**
 * The combined sweep JSON, `{label or backend}-sweep-{parameter}-{model}-{date}.json` under
 * `--result-dir` (or `--result-filename`); returns its path. Nothing is written without a point.
 */
export async function writeSweepFile(
  sweep: { parameter: SweepParameter; points: readonly SweepPoint[] },
  options: { output: Pick<OutputConfig, 'resultDir' | 'resultFilename'>; label?: string },
): Promise<string | undefined> {
  const first = sweep.points[0]?.result
  if (!first) return undefined
  const name = `${safeFileNamePart(options.label ?? first.backend, MAX_LABEL_BYTES)}-sweep-${sweep.parameter}-${baseModel(first)}-${first.date}.json`
  return writeSummaryJson(sweepJson(sweep.parameter, sweep.points), options.output, name)
}

/**
 * The combined `--num-runs` JSON, `{label or backend}-multi-run-{N}runs-{model}-{date}.json`;
 * returns its path. Nothing is written without a run.
 */
export async function writeMultiRunFile(
  multi: { results: readonly AnyBenchResult[]; summary: MultiRunSummary },
  options: { output: Pick<OutputConfig, 'resultDir' | 'resultFilename'>; label?: string },
): Promise<string | undefined> {
  const first = multi.results[0]
  if (!first) return undefined
  const name = `${safeFileNamePart(options.label ?? first.backend, MAX_LABEL_BYTES)}-multi-run-${multi.results.length}runs-${baseModel(first)}-${first.date}.json`
  return writeSummaryJson(multiRunJson(multi.results, multi.summary), options.output, name)
}

function baseModel(result: AnyBenchResult): string {
  return safeFileNamePart(result.model_id.split('/').at(-1) ?? result.model_id)
}
