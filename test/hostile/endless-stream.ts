import type { ServerResponse } from 'node:http'
import type { HttpTransport } from '../../src/config/bench-config.ts'
import { runBenchmark } from '../../src/runner/run-benchmark.ts'
import type { CapturedRequest } from '../backends/script-server.ts'
import { configFrom } from '../faults/fault-helpers.ts'
import { hostileFlags } from './hostile-helpers.ts'

/** Writes `piece` forever, as fast as the client reads, until the client goes away; 404 off the generation path. */
export function endless(request: CapturedRequest, response: ServerResponse, piece: string): void {
  if (!request.url.startsWith('/v1/completions')) {
    response.writeHead(404).end()
    return
  }
  response.writeHead(200, { 'content-type': 'text/event-stream' })
  const write = (): void => {
    while (!response.destroyed && response.write(piece)) {}
    if (!response.destroyed) response.once('drain', write)
  }
  response.on('close', () => response.removeAllListeners('drain'))
  write()
}

/** A two-request run against `baseUrl`, in this process, with the hostile tests' model and tokenizer. */
export function runAgainst(
  baseUrl: string,
  transport: HttpTransport = 'auto',
): ReturnType<typeof runBenchmark> {
  const [, ...flags] = hostileFlags(baseUrl, ['--num-prompts', '2', '--http-transport', transport])
  return runBenchmark(configFrom(flags))
}
