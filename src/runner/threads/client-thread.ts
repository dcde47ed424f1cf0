/**
 * Worker-thread entry of `--client-threads` (client-threads.ts): one HttpClient (its connection pools) and one stream
 * parser per thread. It sends each request it is given with the run's backend and retry policy and
 * posts the output back; the main thread owns the schedule, the concurrency limit and the clock.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { HttpClient } from '../../backends/http.ts'
import { getBackend } from '../../backends/index.ts'
import { withFields } from '../../with-fields.ts'
import { type ClientHealthMonitor, startClientHealthMonitor } from '../client-health.ts'
import { DEFAULT_RETRY_POLICY, noRetries, type RetryStats, sendWithRetries } from '../retry.ts'
import type { ClientThreadData, FromClientThread, ToClientThread } from './messages.ts'

const data = workerData as ClientThreadData
const port = parentPort!
const backend = getBackend(data.backend)
const client = new HttpClient({
  connections: data.connections,
  insecure: data.insecure,
  transport: data.httpTransport,
})
const policy = { ...DEFAULT_RETRY_POLICY, maxRetries: data.maxRetries }
const inFlight = new Map<number, AbortController>()
let monitor: ClientHealthMonitor | undefined

const post = (message: FromClientThread): void => port.postMessage(message)

port.on('message', (message: ToClientThread) => {
  switch (message.kind) {
    case 'send': {
      const controller = new AbortController()
      inFlight.set(message.id, controller)
      const retries: RetryStats = noRetries()
      const signal = controller.signal
      void sendWithRetries(
        (onEarlyFailure) => backend.send(withFields(message.request, { signal, onEarlyFailure }), client),
        policy,
        retries,
        signal,
      ).then((output) => {
        inFlight.delete(message.id)
        post({ kind: 'done', id: message.id, output, retries })
      })
      return
    }
    case 'abort':
      inFlight.get(message.id)?.abort(new Error('interrupted'))
      return
    case 'health-start':
      monitor?.dispose()
      monitor = startClientHealthMonitor()
      return
    case 'health-stop':
      // No dispatch lags here: the main thread releases the requests.
      if (monitor) post({ kind: 'health', summary: monitor.stop([]) })
      monitor = undefined
      return
  }
})
post({ kind: 'ready', timeOriginMs: performance.timeOrigin })
