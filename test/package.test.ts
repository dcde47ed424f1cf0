import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, resolve } from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'

// What `npm pack` would publish, checked on the file list it prints: the files a user's install
// needs, the licence, the docs the README links to, and source maps whose sources are shipped.
// The whole install (Vitest 4.1 and 5) is checked by test/consumer/run.ts, from .ci/run.
const ROOT = resolve(import.meta.dirname, '..')

let files: Set<string>
beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/index.js'))) throw new Error('dist/ is missing: run `npm run build` first')
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  })
  const [pack] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>
  files = new Set(pack!.files.map((f) => f.path))
})

describe('npm pack', () => {
  it('ships the entry points, the binary, the licence and the package metadata', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    const entries = [
      'LICENSE',
      'README.md',
      'package.json',
      ...Object.values(pkg.bin as Record<string, string>),
      ...Object.values(pkg.exports as Record<string, Record<string, string>>).flatMap((e) =>
        Object.values(e),
      ),
      'dist/vitest/runtime/worker.js',
      'dist/vitest/runtime/runner.js',
      'dist/vitest/runtime/setup.js',
      'dist/vitest/runtime/provider.js',
    ].map((p) => normalize(p))
    expect(entries.filter((p) => !files.has(p))).toEqual([])
    expect(pkg.license).toBe('Apache-2.0')
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(
      /^\s+Apache License\n\s+Version 2\.0, January 2004\n/,
    )
    expect(pkg.repository.url).toMatch(/^git\+https:\/\/github\.com\/.+\.git$/)
    expect(pkg.homepage).toMatch(/^https:\/\//)
    expect(pkg.bugs.url).toMatch(/^https:\/\//)
  })

  it('ships no test files', () => {
    expect([...files].filter((p) => /\.test(-d)?\.ts$|^test\/|^fixtures\/(?!sonnet\.txt$)/.test(p))).toEqual(
      [],
    )
  })

  it('ships every docs page the README links to', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const links = [...readme.matchAll(/\]\((?!https?:|#)([^)#\s]+)/g)].map((m) => normalize(m[1]!))
    expect(links.length).toBeGreaterThan(5)
    expect([...new Set(links)].filter((p) => !files.has(p))).toEqual([])
  })

  it('ships the sources of every source map it ships, and the map of every file that names one', () => {
    const dangling: string[] = []
    for (const path of files) {
      if (path.endsWith('.js')) {
        const ref = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(ROOT, path), 'utf8'))?.[1]
        if (ref && !ref.startsWith('data:') && !files.has(join(dirname(path), ref)))
          dangling.push(`${path} → ${ref}`)
      }
      if (!path.endsWith('.map')) continue
      const map = JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as {
        sources: string[]
        sourceRoot?: string
      }
      map.sources.forEach((source, i) => {
        const target = join(dirname(path), map.sourceRoot ?? '', source)
        const inlined = (map as { sourcesContent?: Array<string | null> }).sourcesContent?.[i] != null
        if (!inlined && !files.has(target)) dangling.push(`${path} → ${source}`)
      })
    }
    expect(dangling).toEqual([])
  })
})
