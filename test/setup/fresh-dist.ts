/**
 * Global setup of the projects that run the built package (the CLI through bin/servebench.js, Vitest
 * projects through the plugin in dist/): fails before any test when dist/ is older than src/, so
 * that a test never passes or fails on yesterday's build. `npm test` builds first.
 */
import { readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const ROOT = join(import.meta.dirname, '../..')

export default function setup(): void {
  const stale = staleSources(join(ROOT, 'src'))
  if (stale.length === 0) return
  const shown = stale.slice(0, 3).join(', ') + (stale.length > 3 ? ` and ${stale.length - 3} more` : '')
  throw new Error(`dist/ is older than the sources (${shown}): run \`npm run build\` (npm test builds first)`)
}

/** Sources with no built file, or changed after it was built. */
function staleSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return staleSources(path)
    if (!/\.ts$/.test(entry.name) || /\.test(-d)?\.ts$|\.d\.ts$/.test(entry.name)) return []
    const source = relative(join(ROOT, 'src'), path)
    const built = join(ROOT, 'dist', source.replace(/\.ts$/, '.js'))
    const builtMs = statSync(built, { throwIfNoEntry: false })?.mtimeMs
    return builtMs === undefined || builtMs < statSync(path).mtimeMs ? [`src/${source}`] : []
  })
}
