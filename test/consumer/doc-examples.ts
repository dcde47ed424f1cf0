import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The code examples of the docs that the consumer test (run.ts) runs in a fresh project. A block
 * is marked by an HTML comment on the line before its fence, naming the example project and the
 * file the block becomes:
 *
 *     <!-- servebench-example: first-benchmark/chat.bench.ts -->
 *     ```ts
 *     …
 *     ```
 *
 * The blocks of one project go into one folder. A project with a `vitest.config.ts` is run with
 * `vitest bench --run`; each `.mjs` file is run with node. Either must exit 0 (a benchmark the
 * machine starved may be `invalid`).
 */

/** One marked block. */
export interface DocExample {
  /** The Markdown file, relative to the repository (`docs/dsl.md`). */
  doc: string
  /** The marker's line, 1-based. */
  line: number
  project: string
  /** The file name inside the project folder. */
  file: string
  code: string
}

/** Where examples are looked for: the README and every page of docs/. */
export function exampleDocs(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`)
  return ['README.md', ...docs]
}

const MARKER = /^<!--\s*servebench-example:\s*(.*?)\s*-->\s*$/

/**
 * The marked blocks of one Markdown text. Throws, naming the doc and line, for a marker that is
 * not followed by a fenced block, names no `project/file`, or repeats a file of its project.
 */
export function docExamples(doc: string, text: string): DocExample[] {
  const lines = text.split('\n')
  const examples: DocExample[] = []
  lines.forEach((line, i) => {
    const m = MARKER.exec(line)
    if (!m) return
    const where = `${doc}:${i + 1}`
    const target = /^([\w.-]+)\/([\w.-]+)$/.exec(m[1]!)
    if (!target) throw new Error(`${where}: an example marker names project/file (got "${m[1]}")`)
    const fence = /^(`{3,})\w*\s*$/.exec(lines[i + 1] ?? '')
    if (!fence) throw new Error(`${where}: the example marker is not followed by a fenced code block`)
    const end = lines.findIndex((l, k) => k > i + 1 && l.trim() === fence[1])
    if (end < 0) throw new Error(`${where}: the example's code block is not closed`)
    const [, project, file] = target as unknown as [string, string, string]
    if (examples.some((e) => e.project === project && e.file === file))
      throw new Error(`${where}: ${project}/${file} is marked twice`)
    examples.push({ doc, line: i + 1, project, file, code: `${lines.slice(i + 2, end).join('\n')}\n` })
  })
  return examples
}

/** Every marked block of the README and docs/, grouped by project. */
export function readDocExamples(root: string): Map<string, DocExample[]> {
  const projects = new Map<string, DocExample[]>()
  for (const doc of exampleDocs(root)) {
    for (const example of docExamples(doc, readFileSync(join(root, doc), 'utf8'))) {
      const files = projects.get(example.project) ?? []
      if (files.some((e) => e.file === example.file))
        throw new Error(`${doc}:${example.line}: ${example.project}/${example.file} is marked twice`)
      projects.set(example.project, [...files, example])
    }
  }
  return projects
}
