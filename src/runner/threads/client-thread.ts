/**
 * Worker-thread entry of `--client-threads` (client-threads.ts): one HttpClient (its connection
 * pools) and one stream parser per thread. It sends and times its own share of a timed run
 * (share-runner.ts) and posts the records back in batches; it also sends one-off requests
 * (the warm-ups) and posts each output back.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { HttpClient } from '../../backends/http.ts'
import { getBackend } from '../../backends/index.ts'
import type { RequestOutput } from '../../config/records.ts'
import { withFields } from '../../with-fields.ts'
import { DEFAULT_RETRY_POLICY, noRetries, type RetryStats, sendWithRetries } from '../retry.ts'
import type { ClientThreadData, FromClientThread, PortableRequest, ToClientThread } from './messages.ts'
import { type ArmedShare, armShare } from './share-runner.ts'

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
let share: ArmedShare | undefined

const post = (message: FromClientThread): void => port.postMessage(message)
const send = (request: PortableRequest, signal: AbortSignal, retries: RetryStats): Promise<RequestOutput> =>
  sendWithRetries(
    (onEarlyFailure) => backend.send(withFields(request, { signal, onEarlyFailure }), client),
    policy,
    retries,
    signal,
  )

port.on('message', (message: ToClientThread) => {
  switch (message.kind) {
    case 'send': {
      const controller = new AbortController()
      inFlight.set(message.id, controller)
      const retries = noRetries()
      void send(message.request, controller.signal, retries).then((output) => {
        inFlight.delete(message.id)
        post({ kind: 'done', id: message.id, output, retries })
      })
      return
    }
    case 'abort':
      inFlight.get(message.id)?.abort(new Error('interrupted'))
      return
    case 'run': {
      const retries = noRetries()
      share = armShare(message.share, (request, signal) => send(request, signal, retries), post, retries)
      post({ kind: 'armed' })
      return
    }
    case 'go':
      void share?.go(message.startAtMs)
      return
    case 'stop':
      share?.stop()
      return
    case 'force':
      share?.force()
      return
  }
})
post({ kind: 'ready', timeOriginMs: performance.timeOrigin })
