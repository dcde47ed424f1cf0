import { serveBench } from 'servebench'
import { afterAll, describe, expect } from 'vitest'
import { tiny } from './workload.ts'

// Starves the client on purpose: the worker thread that sends the requests is kept busy 60 ms out
// of every 100 ms, so its event loop answers late and the self-check must call the run invalid.
const starve = setInterval(() => {
  const until = performance.now() + 60
  while (performance.now() < until) {}
}, 100)
afterAll(() => clearInterval(starve))

describe('chat', () => {
  serveBench('starved client', { ...tiny, verdicts: { clientCheck: 'fail', retryInvalid: 1 } }, (result) => {
    expect(result).toMeetSLO({ ttft: { median: 5000 } })
  })
})
