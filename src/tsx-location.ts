/**
 * Where tsx is, for code that starts a worker thread on the TypeScript sources (Vitest, `tsx`,
 * `node --import tsx`): Node 20 cannot start a `.ts` worker, so a one-line shim registers tsx in
 * the new thread first. tsx is looked up beside this package, then where the running process
 * loaded it from (its `--import`/`--require` flags name tsx's files: a global tsx beside a
 * production install), then from the working directory (`node --import tsx` resolves it there).
 */
import { createRequire } from 'node:module'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** tsx's package folder, or undefined when it cannot be found. */
export function tsxDir(from: string): string | undefined {
  const beside = (base: string): string | undefined => {
    try {
      return dirname(createRequire(base).resolve('tsx/package.json'))
    } catch {
      return undefined
    }
  }
  const here = beside(from)
  if (here) return here
  const marker = `${sep}tsx${sep}dist${sep}`
  for (const arg of process.execArgv) {
    const path = arg.startsWith('file:') ? fileURLToPath(arg) : arg
    const at = path.lastIndexOf(marker)
    if (at >= 0) return path.slice(0, at + marker.length - `dist${sep}`.length - 1)
  }
  return beside(join(process.cwd(), 'noop.js'))
}

/** The `eval` source of a worker that registers tsx, then imports `entry` (a `.ts` file URL). */
export function tsWorkerShim(entry: string, from: string): string {
  const dir = tsxDir(from)
  if (dir === undefined) {
    throw new Error(
      `servebench runs from its TypeScript sources (${fileURLToPath(from)}) and needs tsx to start a worker thread; install tsx or use the built package (dist/)`,
    )
  }
  const api = pathToFileURL(join(dir, 'dist/esm/api/index.mjs')).href
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}) })`
}
