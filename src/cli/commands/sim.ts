import { runSimCommand } from '../../sim/options.ts'

/** `servebench sim`: the embedded simulated vLLM server. */
export function runSim(argv: readonly string[]): Promise<number> {
  return runSimCommand([...argv])
}
