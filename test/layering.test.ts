import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// The dependency rules of docs/design.md ("Layering"), checked on the import specifiers of src/.
const SRC = resolve(import.meta.dirname, '../src')

interface Rule {
  from: RegExp
  forbidden: RegExp
  why: string
  /** A type-only import (`import type`, `export type`) across this edge is allowed: it loads nothing. */
  typesAllowed?: RegExp
}

const RULES: Rule[] = [
  {
    from: /^backends\//,
    forbidden: /^(metrics|report|runner|datasets|cli|vitest|sim)\//,
    why: 'backends only send and time requests',
  },
  {
    from: /^datasets\//,
    forbidden: /^(backends|runner|metrics|report|cli|vitest|sim)\//,
    why: 'datasets only produce requests',
  },
  {
    from: /^(metrics|report)\//,
    forbidden: /^(backends|runner|datasets|tokenizer|cli|vitest|sim)\//,
    why: 'metrics and report are pure',
  },
  {
    from: /^sim\//,
    forbidden: /^(backends|metrics|report|runner|datasets|config|cli|vitest)\//,
    why: 'the simulator must not share code with the client it tests',
  },
  {
    from: /^(capacity|runner|backends|datasets|tokenizer|schedule|metrics|report|config)\//,
    forbidden: /^(cli|vitest)\//,
    why: 'the engine never imports a face',
  },
  {
    from: /^config\//,
    forbidden: /^(datasets|options|runner|backends|tokenizer|schedule|metrics|report|sim|cli|vitest)\//,
    why: 'config/ is the base layer: it imports nothing but errors.ts (and no dataset module)',
    // Each dataset module owns its config and option types; BenchConfig.dataset and serveBench's
    // dataset option are their unions, which the registry derives. config/ names those unions with
    // a type-only import, erased from the build: it still loads no dataset module.
    typesAllowed: /^datasets\/registry\.ts$/,
  },
  {
    from: /^(capacity|runner|backends|datasets|tokenizer|schedule|metrics|report|config)\//,
    forbidden: /^options\//,
    why: 'the engine takes a BenchConfig; reading the CLI and DSL options sits above it',
  },
  {
    from: /^report\/(result|console|summary|html|plot|compare)\//,
    forbidden: /^report\/files\//,
    why: 'the parts of report/ build and render; only report/files/ puts them on disk',
  },
  {
    from: /^(index\.ts$|vitest\/runtime\/|vitest\/shared\/)/,
    forbidden: /^vitest\/node\//,
    why: 'worker-side code never imports main-process code',
  },
]

describe('layering', () => {
  it('no module imports across a forbidden edge', () => {
    const violations: string[] = []
    for (const file of listTs(SRC)) {
      const from = relative(SRC, file)
      if (from.endsWith('.test.ts')) continue
      for (const { target, typeOnly } of importEdgesOf(file)) {
        for (const rule of RULES) {
          if (!rule.from.test(from) || !rule.forbidden.test(target)) continue
          if (typeOnly && rule.typesAllowed?.test(target)) continue
          violations.push(`${from} imports ${target}: ${rule.why}`)
        }
      }
    }
    expect(violations).toEqual([])
  })

  it('config/, the base layer, loads nothing from datasets/ (the dataset registry sits above it)', () => {
    const edges = listTs(join(SRC, 'config'))
      .filter((file) => !file.endsWith('.test.ts'))
      .flatMap((file) =>
        importEdgesOf(file).map((edge) => ({ ...edge, from: relative(SRC, file).replaceAll('\\', '/') })),
      )
      .filter((edge) => edge.target.startsWith('datasets/'))
    // Only the registry's unions, by type: BenchConfig.dataset and serveBench's dataset option.
    expect(edges.filter((edge) => !edge.typeOnly)).toEqual([])
    expect(edges.map((edge) => `${edge.from} → ${edge.target}`).sort()).toEqual([
      'config/bench-config.ts → datasets/registry.ts',
      'config/bench-config.ts → datasets/registry.ts',
      'config/dsl-options.ts → datasets/registry.ts',
    ])
    expect(importsOf(join(SRC, 'options/serve-flags.ts'))).toContain('datasets/registry.ts')
  })

  it('in report/, only the files layer (report/files/) touches the filesystem', () => {
    const offenders = listTs(join(SRC, 'report'))
      .map((file) => relative(SRC, file))
      .filter((file) => !file.startsWith('report/files/') && !file.endsWith('.test.ts'))
      .filter((file) => /from ['"](node:)?fs(\/promises)?['"]/.test(readFileSync(join(SRC, file), 'utf8')))
    expect(offenders).toEqual([])
  })

  it('only the files layer (report/files/) writes to the filesystem; caches and the docs generator aside', () => {
    // Not results: the Hugging Face cache of tokenizer files and datasets, and the script that
    // regenerates docs/cli-flags.md. dataset-file.ts opens dataset files read-only (`open(path, 'r')`)
    // to read them within limits. run-startup.ts makes and removes the empty caches of a cold start.
    const notResults = [
      'tokenizer/hub.ts',
      'cli/gen-docs.ts',
      'datasets/dataset-file.ts',
      'cli/sweep/run-startup.ts',
    ]
    const writes =
      /\b(writeFile|writeFileSync|appendFile|appendFileSync|mkdir|mkdirSync|rm|rmSync|rename|renameSync|createWriteStream|symlink|unlink|copyFile|cp|open)\b/
    const offenders = listTs(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !file.startsWith('report/files/') && !file.endsWith('.test.ts'))
      .filter((file) => !notResults.includes(file))
      .filter((file) =>
        [
          ...readFileSync(join(SRC, file), 'utf8').matchAll(
            /import\s*\{([^}]*)\}\s*from\s*['"](?:node:)?fs(?:\/promises)?['"]/g,
          ),
        ].some((m) => writes.test(m[1] ?? '')),
      )
    expect(offenders).toEqual([])
  })

  it('library code outside the CLI and the reporter never calls console.log', () => {
    const offenders = listTs(SRC)
      .map((file) => relative(SRC, file))
      .filter(
        (file) =>
          !file.startsWith('cli/') && file !== 'vitest/node/reporter.ts' && !file.endsWith('.test.ts'),
      )
      .filter((file) => /console\.log\(/.test(readFileSync(join(SRC, file), 'utf8')))
    expect(offenders).toEqual([])
  })
})

function listTs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return listTs(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** Relative import targets of a file, as paths under src/ (e.g. `metrics/calculate.ts`). */
function importsOf(file: string): string[] {
  return importEdgesOf(file).map((edge) => edge.target)
}

/** Each relative import of a file: its target under src/, and whether it is type-only (erased from the build). */
function importEdgesOf(file: string): Array<{ target: string; typeOnly: boolean }> {
  const text = readFileSync(file, 'utf8')
  const edges: Array<{ target: string; typeOnly: boolean }> = []
  for (const match of text.matchAll(
    /^\s*(import|export)(\s+type\b)?[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm,
  )) {
    const spec = match[3] ?? match[4]
    if (spec)
      edges.push({ target: relative(SRC, resolve(dirname(file), spec)), typeOnly: match[2] !== undefined })
  }
  return edges
}
