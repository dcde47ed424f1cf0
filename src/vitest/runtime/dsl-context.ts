/** What resolving a benchmark's DSL options needs from the worker: its name and the suite's settings. */
import type { DslContext } from '../../config/dsl-options.ts'
import type { WorkerSettings } from '../shared/meta.ts'

/** The resolver's context for benchmark `name` under the worker's settings, shared by every DSL face. */
export function dslContextOf(name: string, settings: WorkerSettings): DslContext {
  return {
    name,
    ...(settings.baseUrl !== undefined ? { defaultBaseUrl: settings.baseUrl } : {}),
    simulator: settings.simulator,
    simulatorTokenizer: settings.simulatorTokenizer,
    env: process.env,
    ...(settings.root !== undefined ? { root: settings.root } : {}),
    ...(settings.endpointDefaults !== undefined ? { endpointDefaults: settings.endpointDefaults } : {}),
  }
}
