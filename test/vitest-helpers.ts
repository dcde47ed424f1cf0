import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('..', import.meta.url))

/**
 * Where the fixture projects run: this repository with its own Vitest and Node, or (from .ci/run,
 * through test/consumer/run.ts) a consumer install of the packed servebench with another Vitest
 * and Node: `SERVEBENCH_E2E_ROOT` holds its `node_modules/` and a copy of `test/projects/`, and
 * `SERVEBENCH_E2E_NODE` is its Node binary.
 */
const E2E_ROOT = process.env.SERVEBENCH_E2E_ROOT
const ROOT = E2E_ROOT ?? REPO
const VITEST = join(ROOT, 'node_modules/vitest/vitest.mjs')
const NODE = process.env.SERVEBENCH_E2E_NODE ?? process.execPath

/** The major version of the Vitest that runs the fixture projects. */
export const E2E_VITEST_MAJOR: number = Number(
  (
    JSON.parse(readFileSync(join(ROOT, 'node_modules/vitest/package.json'), 'utf8')) as { version: string }
  ).version.split('.')[0],
)

export interface VitestRun {
  code: number
  output: string
}

/**
 * Runs Vitest on a fixture project in a child process, as a user's CI would, with CI variables
 * removed unless given. The fixtures import `servebench` from dist: `npm test` builds first.
 */
export function runVitest(
  project: string,
  args: string[],
  env: Record<string, string | undefined> = {},
  /** When the child is killed: a safety net against a hung run, not a bound on its time. */
  timeoutMs = 90_000,
): Promise<VitestRun> {
  if (E2E_ROOT === undefined && !existsSync(new URL('../dist/vitest/index.js', import.meta.url))) {
    throw new Error('dist/ is missing: run `npm run build` before the e2e tests')
  }
  const base: Record<string, string | undefined> = {
    ...process.env,
    CI: undefined,
    GITHUB_ACTIONS: undefined,
  }
  base.GITHUB_STEP_SUMMARY = undefined
  base.VITEST = undefined
  base.VITEST_MODE = undefined
  base.VITEST_POOL_ID = undefined
  base.VITEST_WORKER_ID = undefined
  base.NODE_ENV = undefined
  const childEnv = Object.fromEntries(
    Object.entries({ ...base, FORCE_COLOR: '0', NO_COLOR: '1', ...env }).filter(([, v]) => v !== undefined),
  ) as NodeJS.ProcessEnv
  const config = `test/projects/${project}/vitest.config.ts`
  return new Promise((resolve) => {
    execFile(
      NODE,
      [VITEST, ...args, '-c', config],
      { cwd: ROOT, env: childEnv, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0
        resolve({ code, output: `${stdout}\n${stderr}` })
      },
    )
  })
}

/** The newest run folder (`run-<date>-<time>`) under a result directory: where one run's files are. */
export async function latestRunFolder(resultDir: string): Promise<string> {
  const runs = (await readdir(resultDir)).filter((f) => /^run-\d{8}-\d{6}/.test(f)).sort()
  const last = runs.at(-1)
  if (last === undefined) throw new Error(`no run folder in ${resultDir}`)
  return join(resultDir, last)
}
