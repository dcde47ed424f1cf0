/**
 * A dataset's own flags given with another `--dataset-name`: each is an issue naming the flag and
 * the datasets that read it. Python's argparse accepts them and the run ignores them, so a
 * `--speed-bench-dataset-subset` next to `--dataset-name random` changed nothing, without a word.
 */
import type { FlagValues } from '../config/resolve.ts'
import { DATASET_REGISTRY } from '../datasets/registry.ts'
import type { ConfigIssue } from '../errors.ts'

/** Flag name → the `--dataset-name` values whose modules read it. */
const OWNERS: ReadonlyMap<string, readonly string[]> = (() => {
  const owners = new Map<string, string[]>()
  for (const module of DATASET_REGISTRY) {
    for (const row of module.flags) {
      const names = owners.get(row.name) ?? []
      if (!names.includes(module.datasetName)) names.push(module.datasetName)
      owners.set(row.name, names)
      for (const alias of row.aliases ?? []) owners.set(alias, names)
    }
  }
  return owners
})()

/** The issues of dataset flags that `datasetName` does not read; none when the name is unknown. */
export function foreignDatasetFlags(flags: FlagValues, datasetName: string): ConfigIssue[] {
  const chosen = DATASET_REGISTRY.find(
    (m) => m.datasetName === datasetName || m.aliases?.includes(datasetName),
  )
  if (chosen === undefined) return []
  const issues: ConfigIssue[] = []
  for (const name of flags.keys()) {
    const owners = OWNERS.get(name)
    if (owners === undefined || owners.includes(chosen.datasetName)) continue
    issues.push({
      path: name,
      message: `applies to --dataset-name ${owners.join(', ')} only (got --dataset-name ${datasetName}); drop it or name that dataset`,
    })
  }
  return issues
}
