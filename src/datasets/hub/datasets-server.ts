import { DatasetError } from '../../errors.ts'
import { authHeaders, getJson, HubError } from '../../tokenizer/hub.ts'

/** The dataset viewer API: `SERVEBENCH_HF_DATASETS_SERVER`, else `https://datasets-server.huggingface.co`. */
export function datasetsServerUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (env.SERVEBENCH_HF_DATASETS_SERVER || 'https://datasets-server.huggingface.co').replace(/\/+$/, '')
}

export interface ConfigSplit {
  config: string
  split: string
}

const SPLIT_PREFERENCE = ['train', 'test', 'validation'] as const

/**
 * Picks the config and split as Rust does (datasets/hf_dataset.rs): the user's values (checked against the list),
 * else `default` or the first config, and train > test > validation > the first split.
 */
export function chooseConfigSplit(
  dataset: string,
  available: readonly ConfigSplit[],
  subset: string | undefined,
  split: string | undefined,
): ConfigSplit {
  const configs = [...new Set(available.map((s) => s.config))]
  if (subset !== undefined && !configs.includes(subset)) {
    throw new DatasetError(
      `hf: --hf-subset "${subset}" is not a config of ${dataset}; valid: ${configs.join(', ')}`,
    )
  }
  const config = subset ?? (configs.includes('default') ? 'default' : configs[0]) ?? 'default'
  const splits = available.filter((s) => s.config === config).map((s) => s.split)
  if (split !== undefined && !splits.includes(split)) {
    throw new DatasetError(
      `hf: --hf-split "${split}" is not a split of ${dataset} (config ${config}); valid: ${splits.join(', ')}`,
    )
  }
  return { config, split: split ?? SPLIT_PREFERENCE.find((s) => splits.includes(s)) ?? splits[0] ?? 'train' }
}

/**
 * `GET /splits?dataset=`: the configs and splits of a dataset. With both `subset` and `split`
 * given, no request is made. A private or missing dataset (other than a 401/403) falls back to
 * `default` / `train`, as Rust does.
 */
export async function resolveConfigSplit(
  dataset: string,
  subset: string | undefined,
  split: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConfigSplit> {
  if (subset !== undefined && split !== undefined) return { config: subset, split }
  let available: ConfigSplit[]
  try {
    const body = await getJson(
      `${datasetsServerUrl(env)}/splits?dataset=${encodeURIComponent(dataset)}`,
      await authHeaders(env),
    )
    available = parseSplits(body)
  } catch (error) {
    if (error instanceof HubError && error.kind === 'auth') throw datasetAuthError(dataset, error)
    if (!(error instanceof HubError)) throw error
    return { config: subset ?? 'default', split: split ?? 'train' }
  }
  return chooseConfigSplit(dataset, available, subset, split)
}

/**
 * `GET /parquet?dataset=`: the repo paths (under revision `refs/convert/parquet`) of the parquet
 * export of one config and split (`partial-{split}` for partially converted datasets). Empty when
 * the dataset has no export.
 */
export async function listParquetShards(
  dataset: string,
  { config, split }: ConfigSplit,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string[]> {
  let body: unknown
  try {
    body = await getJson(
      `${datasetsServerUrl(env)}/parquet?dataset=${encodeURIComponent(dataset)}`,
      await authHeaders(env),
    )
  } catch (error) {
    if (error instanceof HubError && error.kind === 'auth') throw datasetAuthError(dataset, error)
    if (error instanceof HubError) return []
    throw error
  }
  const files = (body as { parquet_files?: unknown }).parquet_files
  if (!Array.isArray(files)) return []
  const paths: string[] = []
  for (const file of files as Array<Record<string, unknown>>) {
    if (file.config !== config || (file.split !== split && file.split !== `partial-${split}`)) continue
    const path = repoPathOfShard(String(file.url ?? ''))
    if (path) paths.push(path)
  }
  return paths.sort()
}

/** `.../resolve/refs%2Fconvert%2Fparquet/{config}/{split}/0000.parquet` → `{config}/{split}/0000.parquet`. */
export function repoPathOfShard(url: string): string | undefined {
  const match = /\/resolve\/(?:refs%2Fconvert%2Fparquet|refs\/convert\/parquet)\/(.+)$/.exec(url)
  return match ? match[1]!.split('/').map(decodeURIComponent).join('/') : undefined
}

function parseSplits(body: unknown): ConfigSplit[] {
  const splits = (body as { splits?: unknown }).splits
  if (!Array.isArray(splits)) return []
  return splits
    .map((s) => ({ config: String((s as ConfigSplit).config), split: String((s as ConfigSplit).split) }))
    .filter((s) => s.config && s.split)
}

function datasetAuthError(dataset: string, error: HubError): DatasetError {
  return new DatasetError(`hf: cannot read ${dataset}: ${error.message}`, { cause: error })
}
