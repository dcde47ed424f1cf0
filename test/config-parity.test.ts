import { describe, expect, it } from 'vitest'
import { parseArgs } from '../src/cli/parse-args.ts'
import { ConfigError, type ConfigIssue } from '../src/errors.ts'
import { dryRunJson, resolveServeBench } from '../src/options/dry-run.ts'
import { dslToFlags } from '../src/options/dsl-door.ts'
import { dslNamer } from '../src/options/from-dsl.ts'
import { resolveServeFlags } from '../src/options/serve-flags.ts'
import { WORKLOADS, type Workload } from './parity/workloads.ts'

// The proof that the two doors are one: every workload of the corpus, sent through
// `servebench serve --dry-run`'s resolution and through `resolveServeBench`, gives the same JSON
// or the same issues, the CLI's renamed into DSL words by the DSL's own naming.
const NAME = 'parity'
const BASE_URL = 'http://127.0.0.1:8000'

type Outcome = { ok: true; json: Record<string, unknown> } | { ok: false; issues: ConfigIssue[] }

function throughCli(workload: Workload): Outcome {
  try {
    const flags = parseArgs([...workload.cli, '--label', NAME])
    return { ok: true, json: dryRunJson(resolveServeFlags(flags, {})) }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return { ok: false, issues: error.issues }
  }
}

function throughDsl(workload: Workload): Outcome {
  try {
    return {
      ok: true,
      json: resolveServeBench(workload.dsl, { name: NAME, defaultBaseUrl: BASE_URL, env: {} }),
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    return { ok: false, issues: error.issues }
  }
}

describe('the CLI and the DSL resolve every workload of the corpus alike', () => {
  it('covers at least 40 workloads, valid and invalid, every dataset and load shape', () => {
    expect(WORKLOADS.length).toBeGreaterThanOrEqual(40)
    expect(WORKLOADS.some((w) => w.valid)).toBe(true)
    expect(WORKLOADS.some((w) => !w.valid)).toBe(true)
    const kinds = new Set(
      WORKLOADS.map((w) => (w.dsl.dataset as { kind?: string } | undefined)?.kind ?? 'random'),
    )
    for (const kind of [
      'random',
      'random-mm',
      'random-rerank',
      'custom',
      'custom_image',
      'custom_audio',
      'sonnet',
      'prefix_repetition',
      'burstgpt',
      'speed_bench',
      'spec_bench',
      'timed_trace',
      'sharegpt',
      'hf',
      'multi-turn',
    ]) {
      expect(kinds, kind).toContain(kind)
    }
    const loads = new Set(WORKLOADS.map((w) => w.dsl.load?.kind ?? 'none'))
    for (const kind of ['none', 'poisson', 'constant', 'closed', 'rampUp'])
      expect(loads, kind).toContain(kind)
    expect(new Set(WORKLOADS.map((w) => w.name)).size).toBe(WORKLOADS.length)
  })

  it.each(WORKLOADS.map((w) => [w.name, w] as const))('%s', (_name, workload) => {
    const cli = throughCli(workload)
    const dsl = throughDsl(workload)
    if (cli.ok && dsl.ok) {
      expect(dsl.json).toEqual(cli.json)
      expect(workload.valid, 'both doors accept this workload').toBe(true)
      return
    }
    if (!cli.ok && !dsl.ok) {
      const door = dslToFlags(workload.dsl, { name: NAME, defaultBaseUrl: BASE_URL })
      const rename = dslNamer(NAME, door.paths, door.words)
      expect(dsl.issues).toEqual(cli.issues.map(rename))
      // The DSL names every issue by its field, never by a flag.
      for (const issue of dsl.issues) expect(issue.path).toMatch(/^serveBench\('parity'\)\.[a-z]/)
      expect(
        workload.valid,
        `both doors refuse it: ${cli.issues.map((i) => `${i.path} ${i.message}`).join('; ')}`,
      ).toBe(false)
      return
    }
    expect.fail(
      `the doors disagree: CLI ${cli.ok ? 'accepts' : `refuses (${cli.issues.map((i) => i.path).join(', ')})`}, DSL ${dsl.ok ? 'accepts' : `refuses (${dsl.issues.map((i) => `${i.path} ${i.message}`).join('; ')})`}`,
    )
  })
})
