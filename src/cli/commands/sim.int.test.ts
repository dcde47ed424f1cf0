import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import { runSim } from './sim.ts'

const COMMAND = fileURLToPath(new URL('./sim.ts', import.meta.url))

describe('servebench sim', () => {
  it('prints the listening line, serves, and exits 0 on SIGTERM', async () => {
    const script = `import { runSim } from ${JSON.stringify(COMMAND)}
process.exitCode = await runSim(['--model=org/m', '--port', '0', '--decode-base-ms', '1'])`
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

  it('--data-parallel-size 2 serves two engines behind the one port and stops them on SIGTERM', async () => {
    const script = `import { runSim } from ${JSON.stringify(COMMAND)}
process.exitCode = await runSim(['--data-parallel-size', '2', '--ttft-ms', '5', '--itl-ms', '1'])`
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer]
      const url = /listening on (http:\/\/\S+)/.exec(line.toString())![1]!
      const metrics = await (await request(`${url}/metrics`)).body.text()
      expect(metrics).toContain('vllm:num_requests_running{engine="0",model_name="servebench/sim-model"} 0')
      expect(metrics).toContain('vllm:num_requests_running{engine="1",model_name="servebench/sim-model"} 0')
      child.kill('SIGTERM')
      const [code] = await once(child, 'exit')
      expect(code).toBe(0)
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  }, 30_000)

  it('names a port that is taken as a --port problem, not a stack', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as { port: number }
    try {
      await expect(runSim(['--port', String(port)])).rejects.toThrow(
        `--port ${port} on 127.0.0.1 is already in use; choose another port, or --port 0 for any free one`,
      )
    } finally {
      taken.close()
    }
  })
})
