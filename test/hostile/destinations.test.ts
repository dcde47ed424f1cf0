import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect } from 'vitest'
import { checkOutputDestination } from '../../src/report/files/write.ts'
import { type ScriptServer, startScriptServer } from '../backends/script-server.ts'
import { runCli, test } from '../helpers.ts'
import { hostileFlags, neverAnswer } from './hostile-helpers.ts'

let server: ScriptServer
beforeEach(async () => {
  server = await startScriptServer(neverAnswer)
})
afterEach(() => server.close())

describe('an unwritable result destination is refused before any request', () => {
  test('a file as --result-dir', async ({ tmpDir }) => {
    const file = join(tmpDir, 'not-a-dir')
    await writeFile(file, 'x')
    const run = await runCli([...hostileFlags(server.baseUrl), '--save-result', '--result-dir', file])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `servebench: --result-dir cannot be created as a folder: ${file} (or a folder above it) is a file\n`,
    )
    expect(server.requests).toHaveLength(0)
  })

  test('--result-filename .', async ({ tmpDir }) => {
    const run = await runCli([
      ...hostileFlags(server.baseUrl),
      '--save-result',
      '--result-dir',
      tmpDir,
      '--result-filename',
      '.',
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe('servebench: --result-filename must name a file (got ".")\n')
    expect(server.requests).toHaveLength(0)
  })

  test('--result-filename naming an existing folder', async ({ tmpDir }) => {
    await mkdir(join(tmpDir, 'sub'))
    const run = await runCli([
      ...hostileFlags(server.baseUrl),
      '--save-result',
      '--result-dir',
      tmpDir,
      '--result-filename',
      'sub',
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `servebench: --result-filename names a folder, not a file: ${join(tmpDir, 'sub')}\n`,
    )
    expect(server.requests).toHaveLength(0)
  })

  test('--result-dir under /proc exits at once instead of hanging', async () => {
    const run = await runCli(
      [...hostileFlags(server.baseUrl), '--save-result', '--result-dir', '/proc/servebench'],
      {
        timeoutMs: 20_000,
      },
    )
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      'servebench: --result-dir cannot hold a result: /proc/servebench is under /proc, a pseudo-filesystem\n',
    )
    expect(server.requests).toHaveLength(0)
  })

  test.skipIf(process.getuid?.() === 0)('a read-only --result-dir', async ({ tmpDir }) => {
    const dir = join(tmpDir, 'ro')
    await mkdir(dir)
    await chmod(dir, 0o500)
    const run = await runCli([...hostileFlags(server.baseUrl), '--save-result', '--result-dir', dir])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(`servebench: --result-dir is not writable: permission denied in ${dir}\n`)
    expect(server.requests).toHaveLength(0)
    await chmod(dir, 0o700)
  })

  test('a writable --result-dir is created and left without check files', async ({ tmpDir }) => {
    const dir = join(tmpDir, 'a', 'b')
    await checkOutputDestination({ resultDir: dir })
    expect(await readdir(dir)).toEqual([])
  })
})

describe('names cannot write outside --result-dir, and a result is never lost to a name', () => {
  test.for([
    [['--label', '../x'], '--label must not hold "/" or "\\": it names the result file (got "../x")'],
    [
      ['--label', 'a'.repeat(200)],
      `--label must be at most 160 bytes: it names the result file (got "${'a'.repeat(76)}…")`,
    ],
    [
      ['--label', 'tab\there'],
      '--label must not hold control characters: it names the result file (got "tab\\there")',
    ],
    [['--result-filename', '../x.json'], 'climbs out of it'],
    [['--result-filename', '../../../../../../x.json'], 'climbs out of it'],
    [
      ['--result-filename', `${'b'.repeat(300)}.json`],
      '--result-filename names a file of 305 bytes; a file name is at most 255',
    ],
  ] as const)('%j is refused before any request (exit 2)', async ([flags, message], { tmpDir }) => {
    const dir = join(tmpDir, 'results')
    const run = await runCli([
      ...hostileFlags(server.baseUrl),
      '--save-result',
      '--result-dir',
      dir,
      ...flags,
    ])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(message)
    expect(server.requests).toHaveLength(0)
    expect(await readdir(tmpDir)).toEqual([])
  })

  test('a model id from the server with "..", control characters and 400 characters names a file inside the folder', async ({
    tmpDir,
  }) => {
    const model = `../../evil\u0007${'m'.repeat(400)}`
    const hostile = await startScriptServer((request, response) => {
      if (request.url === '/v1/models') {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(JSON.stringify({ data: [{ id: model }] }))
        return
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      response.end(`data: ${JSON.stringify({ choices: [{ text: 'hi' }] })}\n\ndata: [DONE]\n\n`)
    })
    try {
      const flags = hostileFlags(hostile.baseUrl, ['--save-result', '--result-dir', tmpDir])
      flags.splice(flags.indexOf('--model'), 2)
      const run = await runCli(flags)
      expect(run.code).toBe(0)
      const files = await readdir(tmpDir)
      expect(files).toHaveLength(1)
      expect(files[0]).toMatch(/^openai-infqps-evil_m{59}-\d{8}-\d{6}\.json$/)
    } finally {
      await hostile.close()
    }
  })
})
