/**
 * `servebench` from the sources, for perf sections that start its commands in fresh processes
 * (`node --import tsx perf/servebench-cli.ts sim …`): the same `main` as `bin/servebench.js`, with
 * no build needed, so a machine with only the production dependencies and tsx runs them.
 */
import { main } from '../src/cli/main.ts'

process.exitCode = await main(process.argv.slice(2))
