/** `servebench/vitest`: the Vitest plugin and its option types. */
import './shared/meta.ts'

export {
  assertCompatibleVitestVersion,
  type ServebenchPluginOptions,
  SUPPORTED_VITEST,
  servebench,
} from './node/plugin.ts'
export type { ServebenchReporterOptions } from './node/reporter.ts'
