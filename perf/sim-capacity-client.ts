/**
 * The client side of perf/sim-capacity.ts, run in its own process so that it does not share the
 * simulator's event loop: opens N streams at once and reports, as one JSON line, how many events
 * each stream got. Usage: sim-capacity-client.ts URL STREAMS OUTPUT_TOKENS
 */
import { Agent, request } from 'undici'

const [url, streamsArg, outputArg] = process.argv.slice(2)
const streams = Number(streamsArg)
const outputTokens = Number(outputArg)
const agent = new Agent({ connections: streams, pipelining: 0 })

async function stream(i: number): Promise<number> {
  // Distinct token-id prompts: no prefix-cache hits and no tokenizing on the simulator side.
  const prompt = Array.from({ length: 32 }, (_, j) => 1000 + ((i * 32 + j) % 50_000))
  const res = await request(`${url}/v1/completions`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, max_tokens: outputTokens, ignore_eos: true, stream: true }),
  })
  // Events end with a blank line; a byte scan counts them across chunk boundaries.
  let events = 0
  let last = 0
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    for (const byte of chunk) {
      if (byte === 10 && last === 10) events++
      last = byte
    }
  }
  return events
}

const startedAtMs = performance.now()
const counts = await Promise.all(Array.from({ length: streams }, (_, i) => stream(i)))
process.stdout.write(
  `${JSON.stringify({ streams, events: counts.reduce((a, b) => a + b, 0), wallMs: performance.now() - startedAtMs })}\n`,
)
await agent.close()
