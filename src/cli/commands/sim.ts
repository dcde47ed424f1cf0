import { ConfigError, EXIT_CODES } from '../../errors.ts'
import type { SimOptions } from '../../sim/options.ts'
import { asksForHelp } from '../parse-args.ts'
import { parseSimArgs, simUsage } from '../sim-args.ts'

/**
 * `servebench sim [flags]`: starts the simulator, prints
 * `servebench sim listening on http://127.0.0.1:PORT (model …)` and resolves with 0 once SIGINT or
 * SIGTERM has closed it. `--help` prints the flags. Bad flags, and a port that cannot be bound,
 * throw {@link ConfigError}.
 */
export async function runSim(argv: readonly string[]): Promise<number> {
  if (asksForHelp(argv)) {
    process.stdout.write(simUsage())
    return EXIT_CODES.ok
  }
  const options = parseSimArgs(argv)
  // Loaded only now: the server loads js-tiktoken, which `--help` and a bad flag do not need.
  const { startSimulator } = await import('../../sim/server.ts')
  const server = await startSimulator(options).catch((error: unknown) => {
    throw listenError(error, options) ?? error
  })
  process.stdout.write(`servebench sim listening on ${server.url} (model ${server.options.model})\n`)
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      resolve()
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  await server.close()
  return EXIT_CODES.ok
}

/** A port in use or not allowed is the user's to change: named as a flag problem, not a stack. */
function listenError(error: unknown, options: SimOptions): ConfigError | undefined {
  const code = (error as { code?: unknown }).code
  const where = `${options.port ?? 0} on ${options.host ?? '127.0.0.1'}`
  if (code === 'EADDRINUSE')
    return new ConfigError(
      [
        {
          path: '--port',
          message: `${where} is already in use; choose another port, or --port 0 for any free one`,
        },
      ],
      { cause: error },
    )
  if (code === 'EACCES')
    return new ConfigError(
      [{ path: '--port', message: `${where} may not be bound by this user; choose a port above 1023` }],
      { cause: error },
    )
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new ConfigError(
      [{ path: '--host', message: `${options.host} is not an address of this machine (${String(code)})` }],
      { cause: error },
    )
  return undefined
}
