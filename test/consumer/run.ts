import { execFile } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { BASE_CHECKS, CONSUMER_CHECKS, CONSUMER_ENV, type ConsumerRun } from './checks.ts'
import { type DocExample, readDocExamples } from './doc-examples.ts'

// The consumer test, run by .ci/run after `npm test` (not part of it: each install takes tens of
// seconds): `npm pack`, then a fresh project per Vitest major that installs the tarball, runs a
// passing and a failing suite under `vitest bench` and `vitest run` and checks test/consumer/checks.ts.
// The first flavour (Vitest 4 unless only 5 is asked for) also runs the docs' marked examples as
// written (test/consumer/doc-examples.ts). Vitest 5 runs on Node 24 from the npm registry's `node` package. With --e2e, the Vitest-5
// project also runs the example suites (suites/) and the Vitest-face end-to-end tests, the latter
// through this repository's Vitest with SERVEBENCH_E2E_ROOT (test/vitest-helpers.ts).
//
//   npx tsx test/consumer/run.ts [--vitest 4,5] [--e2e] [--keep]

const REPO = resolve(import.meta.dirname, '../..')

/** The Vitest-face end-to-end tests run against the Vitest 5 install (a few, for CI's time). */
export const VITEST5_E2E_TESTS = [
  'test/vitest5.test.ts',
  'test/vitest-slo.test.ts',
  'test/vitest-baseline.test.ts',
  'test/vitest-modifiers.test.ts',
  'test/vitest-ergonomics.test.ts',
  'test/vitest-datasets.test.ts',
]

/** The example suites run with Vitest 5 (suites/, filters of `vitest bench`). */
export const VITEST5_SUITES = ['chat-latency', 'regression-gate']

interface Flavour {
  vitest: 4 | 5
  dependencies: Record<string, string>
  /** The Node binary, relative to the project, or this process's. */
  node?: string
  nodeMajor: number
}

const FLAVOURS: Record<4 | 5, Flavour> = {
  4: { vitest: 4, dependencies: { vitest: '4.1.12', vite: '^8.3.8' }, nodeMajor: 20 },
  5: {
    vitest: 5,
    dependencies: { vitest: '^5.1.2', vite: '^8.3.8', node: '^24' },
    node: 'node_modules/node/bin/node',
    nodeMajor: 24,
  },
}

const SUITE_RUNS: Array<Pick<ConsumerRun, 'mode' | 'expected' | 'file'>> = [
  { mode: 'bench', expected: 'pass', file: 'slo-pass.bench.ts' },
  { mode: 'bench', expected: 'fail', file: 'slo-fail.bench.ts' },
  { mode: 'run', expected: 'pass', file: 'run-pass.test.ts' },
  { mode: 'run', expected: 'fail', file: 'run-fail.test.ts' },
]

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      vitest: { type: 'string', default: '4,5' },
      e2e: { type: 'boolean' },
      keep: { type: 'boolean' },
    },
  })
  const majors = values.vitest.split(',').map((v) => Number(v.trim()))
  if (!majors.every((m): m is 4 | 5 => m === 4 || m === 5)) {
    throw new Error(`--vitest must be a list of 4 and 5, such as 4,5 (got ${values.vitest})`)
  }
  if (!existsSync(join(REPO, 'dist/vitest/index.js')))
    throw new Error('dist/ is missing: run `npm run build` first')
  const work = mkdtempSync(join(tmpdir(), 'servebench-consumer-'))
  const problems: string[] = []
  try {
    const packed = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], REPO)
    if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.output}`)
    const tarball = join(work, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename)
    // Read before any install, so a marker that marks no block fails at once.
    const examples = readDocExamples(REPO)
    const docsMajor = majors.includes(4) ? 4 : majors[0]
    for (const major of majors) {
      const flavour = FLAVOURS[major]
      const dir = join(work, `vitest${major}`)
      const node = await install(flavour, dir, tarball)
      for (const run of SUITE_RUNS) problems.push(...(await suiteRun(flavour, dir, node, run)))
      if (major === docsMajor)
        for (const [project, files] of examples)
          problems.push(...(await docExample(dir, node, project, files)))
      if (values.e2e && major === 5) problems.push(...(await e2e(dir, node)))
    }
  } finally {
    if (values.keep) log(`kept ${work}`)
    else rmSync(work, { recursive: true, force: true })
  }
  for (const p of problems) log(`FAIL ${p}`)
  log(problems.length === 0 ? 'consumer test passed' : `consumer test: ${problems.length} problem(s)`)
  return problems.length === 0 ? 0 : 1
}

async function install(flavour: Flavour, dir: string, tarball: string): Promise<string> {
  cpSync(join(REPO, 'test/projects'), join(dir, 'test/projects'), { recursive: true })
  cpSync(join(REPO, 'suites'), join(dir, 'suites'), { recursive: true })
  // The dataset files some fixture projects read (../../../fixtures/datasets).
  cpSync(join(REPO, 'fixtures/datasets'), join(dir, 'fixtures/datasets'), { recursive: true })
  const pkg = {
    name: `servebench-consumer-vitest${flavour.vitest}`,
    private: true,
    type: 'module',
    devDependencies: { servebench: `file:${tarball}`, ...flavour.dependencies },
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`)
  const started = performance.now()
  const npm = await sh('npm', ['install', '--no-audit', '--no-fund'], dir)
  if (npm.code !== 0) throw new Error(`npm install (Vitest ${flavour.vitest}) failed:\n${npm.output}`)
  const node = flavour.node ? join(dir, flavour.node) : process.execPath
  const version = await sh(node, ['--version'], dir)
  if (!version.stdout.startsWith(`v${flavour.nodeMajor}.`)) {
    throw new Error(
      `Vitest ${flavour.vitest} needs Node ${flavour.nodeMajor}; ${node} is ${version.output.trim()}`,
    )
  }
  log(`Vitest ${flavour.vitest}: installed in ${seconds(started)} on Node ${version.stdout.trim()}`)
  return node
}

async function suiteRun(
  flavour: Flavour,
  dir: string,
  node: string,
  run: Pick<ConsumerRun, 'mode' | 'expected' | 'file'>,
): Promise<string[]> {
  const resultDir = join(dir, 'results', `${run.mode}-${run.expected}`)
  const args = run.mode === 'bench' ? ['bench', '--run'] : ['run']
  const started = performance.now()
  const vitest = join(dir, 'node_modules/vitest/vitest.mjs')
  const out = await sh(node, [vitest, ...args, run.file, '-c', 'test/projects/slo/vitest.config.ts'], dir, {
    SB_RESULT_DIR: resultDir,
    SB_JUNIT: join(resultDir, 'junit.xml'),
    ...CONSUMER_ENV,
  })
  // Each run's files are in its run folder (run-<date>-<time>/) below the result folder.
  const resultFiles = existsSync(resultDir) ? readdirSync(resultDir, { recursive: true }).map(String) : []
  const summaryPath = join(resultDir, 'servebench-summary.json')
  const consumerRun: ConsumerRun = {
    vitest: flavour.vitest,
    ...run,
    code: out.code,
    output: out.output,
    resultDir,
    resultFiles,
    summary: existsSync(summaryPath) ? JSON.parse(readFileSync(summaryPath, 'utf8')) : undefined,
  }
  const problems = [...BASE_CHECKS, ...CONSUMER_CHECKS].flatMap((check) => check(consumerRun))
  const label = `Vitest ${flavour.vitest} \`vitest ${args.join(' ')}\` ${run.file}`
  log(`${problems.length === 0 ? 'ok  ' : 'FAIL'} ${label} (exit ${out.code}, ${seconds(started)})`)
  if (problems.length > 0) log(out.output)
  return problems.map((p) => `${label}: ${p}`)
}

/**
 * One example project of the docs, its files written as the docs give them into a folder of the
 * consumer project: `vitest bench --run` when it has a vitest.config.ts, node for each .mjs file.
 */
async function docExample(
  dir: string,
  node: string,
  project: string,
  files: DocExample[],
): Promise<string[]> {
  const folder = join(dir, 'examples', project)
  mkdirSync(folder, { recursive: true })
  for (const f of files) writeFileSync(join(folder, f.file), f.code)
  const where = [...new Set(files.map((f) => f.doc))].join(', ')
  const runs: Array<{ what: string; args: string[]; vitest: boolean }> = []
  if (files.some((f) => f.file === 'vitest.config.ts'))
    runs.push({
      what: 'vitest bench --run',
      args: [join(dir, 'node_modules/vitest/vitest.mjs'), 'bench', '--run'],
      vitest: true,
    })
  for (const f of files.filter((f) => f.file.endsWith('.mjs')))
    runs.push({ what: `node ${f.file}`, args: [f.file], vitest: false })
  if (runs.length === 0)
    return [`the ${project} example of ${where} has nothing to run (no vitest.config.ts, no .mjs file)`]
  const problems: string[] = []
  for (const run of runs) {
    const started = performance.now()
    const out = await sh(node, run.args, folder)
    // As for the example suites: a benchmark the machine starved is `invalid`, which says nothing
    // about the example; a `fail`, an error or no benchmark at all does.
    const verdicts = run.vitest
      ? suiteVerdicts(join(folder, 'servebench-results/servebench-summary.json'))
      : []
    const ok =
      out.code === 0 || (verdicts.length > 0 && verdicts.every((v) => v === 'pass' || v === 'invalid'))
    const shown = run.vitest ? `, ${verdicts.join(', ') || 'no benchmark'}` : ''
    log(
      `${ok ? 'ok  ' : 'FAIL'} ${where}: the ${project} example, \`${run.what}\` (exit ${out.code}${shown}, ${seconds(started)})`,
    )
    if (!ok) {
      log(out.output)
      problems.push(
        `${where}: the ${project} example does not run as written: \`${run.what}\` exited ${out.code}`,
      )
    }
  }
  return problems
}

async function e2e(dir: string, node: string): Promise<string[]> {
  const problems: string[] = []
  let started = performance.now()
  const vitest = join(dir, 'node_modules/vitest/vitest.mjs')
  const suites = await sh(
    node,
    [vitest, 'bench', '--run', ...VITEST5_SUITES, '-c', 'suites/vitest.config.ts'],
    dir,
  )
  // A benchmark the machine starved is `invalid` (the suites keep clientCheck: 'fail'): that says
  // nothing about Vitest 5, so only a `fail`, an error or a missing benchmark counts here.
  const verdicts = suiteVerdicts(join(dir, 'suites/servebench-results/servebench-summary.json'))
  const suitesOk =
    suites.code === 0 ||
    (verdicts.length === VITEST5_SUITES.length && verdicts.every((v) => v === 'pass' || v === 'invalid'))
  log(
    `${suitesOk ? 'ok  ' : 'FAIL'} Vitest 5 example suites ${VITEST5_SUITES.join(', ')}: ${verdicts.join(', ')} (${seconds(started)})`,
  )
  if (!suitesOk) problems.push(`Vitest 5 example suites exited ${suites.code}:\n${suites.output}`)
  started = performance.now()
  // One file at a time: the baseline test's regression check is decided on latencies, and a second
  // file's Vitest and simulator on the same cores blur them.
  const repoVitest = join(REPO, 'node_modules/vitest/vitest.mjs')
  const tests = await sh(
    process.execPath,
    [
      repoVitest,
      'run',
      '--project',
      'e2e',
      '--no-file-parallelism',
      '--testTimeout',
      '180000',
      ...VITEST5_E2E_TESTS,
    ],
    REPO,
    {
      SERVEBENCH_E2E_ROOT: dir,
      SERVEBENCH_E2E_NODE: node,
    },
  )
  log(`${tests.code === 0 ? 'ok  ' : 'FAIL'} Vitest-face e2e tests on Vitest 5 (${seconds(started)})`)
  if (tests.code !== 0)
    problems.push(`Vitest-face e2e tests on Vitest 5 exited ${tests.code}:\n${tests.output}`)
  return problems
}

function suiteVerdicts(summaryPath: string): string[] {
  if (!existsSync(summaryPath)) return []
  const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as {
    benchmarks?: Array<{ verdict?: string }>
  }
  return (summary.benchmarks ?? []).map((b) => String(b.verdict))
}

interface Shell {
  code: number
  stdout: string
  output: string
}

function sh(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Shell> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...env }
  for (const key of ['CI', 'GITHUB_ACTIONS', 'GITHUB_STEP_SUMMARY', 'VITEST', 'VITEST_MODE', 'NODE_ENV']) {
    if (!(key in env)) delete childEnv[key]
  }
  return new Promise((done) => {
    execFile(
      command,
      args,
      { cwd, env: childEnv, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        done({ code, stdout, output: `${stdout}\n${stderr}` })
      },
    )
  })
}

function seconds(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`
}

function log(line: string): void {
  process.stdout.write(`${line}\n`)
}

process.exitCode = await main()
