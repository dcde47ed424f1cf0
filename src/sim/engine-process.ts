/**
 * Entry of one engine process of a data-parallel simulator (data-parallel.ts): an independent
 * engine with its own HTTP server, serving the connections the primary hands it, answering the
 * primary's asks for its own figures, and reporting its stats when they change.
 */
import type { Socket } from 'node:net'
import { ConfigError } from '../errors.ts'
import type { EngineAsk, FromEngine, SimPeers, ToEngine } from './engine-peers.ts'
import { resolveSimOptions } from './options.ts'
import { createNodeServer, createSimNode, type SimNode } from './sim-node.ts'
import { createTiktokenSimTokenizer } from './tiktoken.ts'

/** How often an engine looks whether its stats changed, and reports them when they did. */
const STATS_EVERY_MS = 50

const send = (message: FromEngine): void => {
  if (process.connected) process.send!(message)
}
const gathers = new Map<number, (answers: unknown[]) => void>()
let nextGather = 0
const peers: SimPeers = {
  all: <A extends EngineAsk>(ask: A) =>
    new Promise((resolve) => {
      const id = nextGather++
      gathers.set(id, resolve as (answers: unknown[]) => void)
      send({ kind: 'gather', id, ask })
    }),
}
let node: SimNode | undefined
let server: ReturnType<typeof createNodeServer> | undefined

process.on('message', (message: ToEngine, handle?: Socket) => {
  switch (message.kind) {
    case 'start':
      try {
        const resolved = resolveSimOptions(
          { ...message.options, dataParallelSize: 1 },
          createTiktokenSimTokenizer,
        )
        const started = createSimNode(resolved, { ...message, peers: () => peers })
        node = started
        server = createNodeServer(started)
        reportStats(started)
        send({ kind: 'started' })
      } catch (error) {
        send({
          kind: 'failed',
          message: error instanceof Error ? error.message : String(error),
          ...(error instanceof ConfigError ? { issues: error.issues } : {}),
        })
      }
      return
    case 'connection':
      if (server && handle) server.emit('connection', handle)
      else handle?.destroy()
      return
    case 'ask':
      if (node) send({ kind: 'answer', id: message.id, value: node.answer(message.ask) })
      return
    case 'gathered':
      gathers.get(message.id)?.(message.answers)
      gathers.delete(message.id)
      return
    case 'close':
      node?.close()
      server?.closeAllConnections()
      server?.close(() => process.exit(0))
      return
  }
})
// The primary is gone: nothing will ever reach this engine again.
process.on('disconnect', () => process.exit(0))

/** Sends the stats whenever they changed since the last look, so the primary's `stats()` stays current. */
function reportStats(started: SimNode): void {
  let last = ''
  setInterval(() => {
    const stats = started.answer({ kind: 'stats' })
    const key = `${stats.requestsReceived} ${stats.requestsFinished} ${stats.requestsAborted} ${stats.running} ${stats.waiting} ${stats.generationTokensTotal} ${stats.stepLag.steps}`
    if (key === last) return
    last = key
    send({ kind: 'stats', stats })
  }, STATS_EVERY_MS).unref()
}
