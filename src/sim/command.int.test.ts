import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { expect, it } from 'vitest'

const OPTIONS = fileURLToPath(new URL('./options.ts', import.meta.url))

it('prints the listening line, serves, and exits 0 on SIGTERM', async () => {
  const script = `import { runSimCommand } from ${JSON.stringify(OPTIONS)}
process.exitCode = await runSimCommand(['--model=org/m', '--port', '0', '--decode-base-ms', '1'])`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    const [line] = (await once(child.stdout, 'data')) as [Buffer]
    const match = /^servebench sim listening on (http:\/\/127\.0\.0\.1:\d+) \(model org\/m\)\n$/.exec(
      line.toString(),
    )
    expect(match).not.toBeNull()
    const res = await request(`${match![1]}/v1/models`)
    expect(((await res.body.json()) as { data: { id: string }[] }).data[0]!.id).toBe('org/m')
    child.kill('SIGTERM')
    const [code] = await once(child, 'exit')
    expect(code).toBe(0)
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL')
  }
}, 20_000)
