import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect } from 'vitest'
import { playSse, type ScriptServer, sse, startScriptServer } from '../backends/script-server.ts'
import { runCli, test } from '../helpers.ts'
import { expectAccounted, hostileFlags, readResultFile } from './hostile-helpers.ts'

const KEY = 'sk-proj-0123456789abcdefSECRET'
const HF = 'hf_abcdefghijklmnopSECRET'
const BASIC_PASSWORD = 'hunter2-SECRET'

let server: ScriptServer | undefined
afterEach(() => server?.close())

/** Everything the run printed and wrote, checked for every secret. */
async function expectNoSecret(dir: string, stdout: string, stderr: string): Promise<void> {
  const files = await readdir(dir)
  const texts = [stdout, stderr, ...(await Promise.all(files.map((f) => readFile(join(dir, f), 'utf8'))))]
  for (const text of texts) {
    for (const secret of [KEY, HF, BASIC_PASSWORD, 'SECRET']) expect(text).not.toContain(secret)
  }
}

describe('secrets a server echoes back are blanked everywhere', () => {
  test('a 401 that quotes the Bearer token of a --header', async ({ tmpDir }) => {
    server = await startScriptServer((request, response) => {
      const auth = request.rawHeaders.find(([name]) => name.toLowerCase() === 'authorization')?.[1] ?? ''
      response.writeHead(401, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify({
          error: {
            message: `Incorrect API key provided: ${auth.replace('Bearer ', '')}`,
            type: 'invalid_request_error',
          },
        }),
      )
    })
    const run = await runCli(
      [
        ...hostileFlags(server.baseUrl),
        '--header',
        `Authorization=Bearer ${KEY}`,
        '--save-result',
        '--save-detailed',
        '--result-dir',
        tmpDir,
      ],
      { env: { HF_TOKEN: HF } },
    )
    expect(run.code).toBe(1)
    const result = await readResultFile(tmpDir)
    expectAccounted(result, 4)
    expect((result.errors as string[])[0]).toContain('Incorrect API key provided: [redacted]')
    expect(run.stdout).toContain('Incorrect API key provided: [redacted]')
    await expectNoSecret(tmpDir, run.stdout, run.stderr)
  })

  test('a stream that echoes the API key, the HF token and a Basic password into the generated text', async ({
    tmpDir,
  }) => {
    server = await startScriptServer((_request, response) =>
      playSse(response, [
        { kind: 'write', data: sse({ choices: [{ text: `key ${KEY} ` }] }) },
        { kind: 'write', data: sse({ choices: [{ text: `hf ${HF} pw ${BASIC_PASSWORD}` }] }) },
        { kind: 'write', data: sse('[DONE]') },
      ]),
    )
    const basic = Buffer.from(`user:${BASIC_PASSWORD}`).toString('base64')
    const run = await runCli(
      [
        ...hostileFlags(server.baseUrl),
        '--header',
        `Proxy-Authorization=Basic ${basic}`,
        '--save-result',
        '--save-detailed',
        '--result-dir',
        tmpDir,
      ],
      { env: { HF_TOKEN: HF, OPENAI_API_KEY: KEY } },
    )
    expect(run.code).toBe(0)
    const result = await readResultFile(tmpDir)
    expectAccounted(result, 4)
    expect((result.generated_texts as string[])[0]).toBe('key [redacted] hf [redacted] pw [redacted]')
    await expectNoSecret(tmpDir, run.stdout, run.stderr)
  })
})
