import { parseSimArgs, simUsage } from './options.ts'
import { startSimulator } from './server.ts'

/** `servebench sim [flags]`: see `runSimCommand` in options.ts, which loads this lazily. */
export async function runSimServer(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(simUsage())
    return 0
  }
  const server = await startSimulator(parseSimArgs(argv))
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
  return 0
}
