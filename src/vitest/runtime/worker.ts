import { parentPort } from 'node:worker_threads'
import { init, runBaseTests, setupEnvironment } from 'vitest/worker'

/**
 * Entry of the pool's worker thread (loaded as `dist/vitest/runtime/worker.js`): Vitest's own worker
 * runtime over the thread's message port. Settings come in `workerData.servebench`.
 */
const port = parentPort!
init({
  post: (message) => port.postMessage(message),
  on: (callback) => port.on('message', callback),
  off: (callback) => port.off('message', callback),
  teardown: () => port.removeAllListeners('message'),
  runTests: (state, traces) => runBaseTests('run', state, traces),
  collectTests: (state, traces) => runBaseTests('collect', state, traces),
  setup: setupEnvironment,
})
