import type { IncomingMessage, ServerResponse } from 'node:http'
import { ConfigError } from '../../errors.ts'
import type { SimContext } from '../context.ts'
import { type FaultSpec, type ResolvedFault, resolveFaults } from '../faults.ts'
import { readBody, SimHttpError, sendError, sendJson } from './http.ts'

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void

/**
 * `/servebench/faults`: `GET` lists the faults in force; `POST` replaces them with a JSON list of
 * fault objects or `--fault` strings and restarts their request count (answers the resolved list);
 * `DELETE` clears them. A bad list is a 400 naming every bad entry, and the faults stay as they were.
 * `setEverywhere` sets them on every engine (each counts its own requests).
 */
export function faultRoutes(
  ctx: SimContext,
  setEverywhere: (faults: ResolvedFault[]) => Promise<void>,
): Partial<Record<string, Handler>> {
  return {
    GET: (_req, res) => sendJson(res, 200, ctx.faults.list()),
    POST: async (req, res) => {
      const text = await readBody(req)
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch (error) {
        throw new SimHttpError(400, `Invalid JSON body: ${(error as Error).message}`)
      }
      if (!Array.isArray(body)) {
        throw new SimHttpError(
          400,
          'Body must be a JSON list of faults, for example [{"kind":"http500","nth":1}]',
        )
      }
      try {
        const faults = resolveFaults(body as Array<FaultSpec | string>)
        await setEverywhere(faults)
        sendJson(res, 200, faults)
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        sendError(res, new SimHttpError(400, error.message))
      }
    },
    DELETE: async (_req, res) => {
      await setEverywhere([])
      res.writeHead(204)
      res.end()
    },
  }
}
