import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'

/**
 * What the consumer test (test/consumer/run.ts) asserts about each Vitest run in a project that
 * installed the packed servebench. Each check returns the problems it found (none: passed).
 * Checks of the CI features (GitHub annotations, JUnit XML, JSON reports) belong in
 * {@link CONSUMER_CHECKS}, with the environment their run needs in {@link CONSUMER_ENV}.
 */

/** One Vitest run of the consumer test. */
export interface ConsumerRun {
  /** Vitest's major version in the consumer project. */
  vitest: 4 | 5
  /** `vitest bench --run` or `vitest run`. */
  mode: 'bench' | 'run'
  /** Whether the suite's checks hold. */
  expected: 'pass' | 'fail'
  /** The suite file run (in test/projects/slo). */
  file: string
  code: number
  /** stdout and stderr, without colours. */
  output: string
  /** The servebench result folder of this run. */
  resultDir: string
  /** The files below it, relative to it (a run's files are in its `run-<date>-<time>/` folder). */
  resultFiles: string[]
  /** servebench-summary.json, parsed, when it was written. */
  summary: { reason?: string; benchmarks?: Array<{ file?: string; verdict?: string }> } | undefined
}

export type ConsumerCheck = (run: ConsumerRun) => string[]

/** Extra environment of every consumer run: GitHub Actions, for its annotations. */
export const CONSUMER_ENV: Record<string, string> = { GITHUB_ACTIONS: 'true' }

/** The checks of every run: exit code, result files, stack traces, warnings. */
export const BASE_CHECKS: ConsumerCheck[] = [
  (run) => {
    const want = run.expected === 'pass' ? 0 : 1
    return run.code === want ? [] : [`exit code ${run.code}, expected ${want}`]
  },
  (run) => {
    const stem = run.file.replace(/\.(bench|test)\.ts$/, '')
    const problems: string[] = []
    if (!run.resultFiles.some((f) => basename(f).startsWith(`${stem}-`) && f.endsWith('.json'))) {
      problems.push(
        `no result JSON for ${run.file} in ${run.resultDir} (found ${run.resultFiles.join(', ')})`,
      )
    }
    const verdict = run.summary?.benchmarks?.[0]?.verdict
    if (verdict !== run.expected)
      problems.push(`summary verdict ${String(verdict)}, expected ${run.expected}`)
    return problems
  },
  (run) => {
    const problems: string[] = []
    if (/Sourcemap for .* points to missing source files/.test(run.output)) {
      problems.push('Vite warned about a source map pointing to missing files')
    }
    if (/node_modules\/servebench\/(src|dist)\//.test(run.output)) {
      problems.push('the output names servebench internals (node_modules/servebench/src or dist)')
    }
    if (
      run.expected === 'fail' &&
      !new RegExp(`❯ ${run.file.replace('.', '\\.')}:\\d+:\\d+`).test(run.output)
    ) {
      problems.push(`the failure does not point at ${run.file}:line:column`)
    }
    return problems
  },
  (run) =>
    run.vitest === 5 && run.mode === 'bench' && !/^\s+name\s+hz\s+min\s+max\s+mean/m.test(run.output)
      ? ["no row in Vitest's benchmark table (servebench's benchmark provider)"]
      : [],
]

/** The CI features: GitHub annotations and servebench's JUnit XML (`junit` reporter option). */
export const CONSUMER_CHECKS: ConsumerCheck[] = [
  (run) => {
    const errors = run.output.split('\n').filter((line) => line.startsWith('::error '))
    if (run.expected === 'pass')
      return errors.length === 0 ? [] : [`${errors.length} ::error annotations for a passing suite`]
    return errors.some((line) => line.includes(run.file) && /line=\d+/.test(line))
      ? []
      : [`no ::error annotation at ${run.file} and a line`]
  },
  (run) => {
    const junit = join(run.resultDir, 'junit.xml')
    if (!existsSync(junit)) return ['no JUnit XML written']
    const xml = readFileSync(junit, 'utf8')
    const failures = /<testsuites[^>]* failures="(\d+)"/.exec(xml)?.[1]
    const want = run.expected === 'pass' ? '0' : '1'
    return failures === want ? [] : [`JUnit XML counts ${String(failures)} failures, expected ${want}`]
  },
]
