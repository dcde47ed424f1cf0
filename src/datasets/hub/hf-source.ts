import { readdir, readFile, stat } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { parquetReadObjects } from 'hyparquet'
import { DatasetError } from '../../errors.ts'
import { createRng } from '../../rng.ts'
import { hubFile, listHubFiles } from '../../tokenizer/hub.ts'
import { isHubOffline } from '../../tokenizer/hub-cache.ts'
import {
  type ConfigSplit,
  chooseConfigSplit,
  listParquetShards,
  resolveConfigSplit,
} from './datasets-server.ts'
import { type Row, readJsonRows, selectNativeFiles } from './hf-columns.ts'
import { hubDatasetError } from './hub-sampling.ts'

export interface HfSourceOptions {
  /** A hub dataset id, or a local file or folder. */
  dataset: string
  subset?: string
  split?: string
  seed: number
  disableShuffle: boolean
  /** Stop opening shards once this many rows are read (Rust: 2 × --num-prompts). */
  minRows: number
  env?: NodeJS.ProcessEnv
}

const PARQUET_REVISION = 'refs/convert/parquet'

/**
 * Reads the rows of a dataset (Rust: the download path of datasets/hf_dataset.rs): a local file or folder, else
 * the datasets-server parquet export of the chosen config and split, else the repo's own
 * parquet/JSON/JSONL files. Shards are sorted, shuffled with `seed` unless `disableShuffle`, and
 * downloaded through the hub cache until `minRows` rows are read. With `HF_HUB_OFFLINE` the
 * cached export or snapshot is used.
 */
export async function loadHfRows(options: HfSourceOptions): Promise<Row[]> {
  const env = options.env ?? process.env
  const local = await stat(options.dataset).catch(() => undefined)
  if (local !== undefined) return readLocal(options, local.isDirectory())

  const { dataset } = options
  let shards: { revision: string; paths: string[]; where: ConfigSplit }
  try {
    shards = isHubOffline(env) ? await cachedShards(options, env) : await onlineShards(options, env)
  } catch (error) {
    throw hubDatasetError('hf', `${dataset} from the hub`, error)
  }
  if (shards.paths.length === 0) {
    throw new DatasetError(
      `hf: ${dataset} has no parquet export and no parquet/JSON/JSONL files for config ` +
        `${shards.where.config}, split ${shards.where.split}; check --hf-subset and --hf-split`,
    )
  }
  const rows: Row[] = []
  for (const path of order(shards.paths, options)) {
    if (rows.length >= options.minRows) break
    let local: string
    try {
      local = await hubFile(dataset, path, { type: 'dataset', revision: shards.revision, env })
    } catch (error) {
      throw hubDatasetError('hf', `${path} of ${dataset}`, error)
    }
    rows.push(...(await readRows(local, path)))
  }
  return rows
}

async function onlineShards(options: HfSourceOptions, env: NodeJS.ProcessEnv) {
  const where = await resolveConfigSplit(options.dataset, options.subset, options.split, env)
  const exported = await listParquetShards(options.dataset, where, env)
  if (exported.length > 0) return { revision: PARQUET_REVISION, paths: exported, where }
  const files = await listHubFiles(options.dataset, { type: 'dataset', env })
  return { revision: 'main', paths: selectNativeFiles(files, where.config, where.split), where }
}

// Offline: the cached parquet export (`refs/refs/convert/parquet`), else the cached `main` snapshot.
async function cachedShards(options: HfSourceOptions, env: NodeJS.ProcessEnv) {
  const exported = await listHubFiles(options.dataset, {
    type: 'dataset',
    revision: PARQUET_REVISION,
    env,
  }).catch(() => [])
  const available = exported
    .map((p) => p.split('/'))
    .filter((parts) => parts.length === 3 && parts[2]!.endsWith('.parquet'))
    .map(([config, split]) => ({ config: config!, split: split!.replace(/^partial-/, '') }))
  if (available.length > 0) {
    const where = chooseConfigSplit(options.dataset, available, options.subset, options.split)
    const paths = exported.filter((p) => {
      const [config, split] = p.split('/')
      return config === where.config && (split === where.split || split === `partial-${where.split}`)
    })
    return { revision: PARQUET_REVISION, paths, where }
  }
  const files = await listHubFiles(options.dataset, { type: 'dataset', env })
  const where = { config: options.subset ?? 'default', split: options.split ?? 'train' }
  return { revision: 'main', paths: selectNativeFiles(files, where.config, where.split), where }
}

async function readLocal(options: HfSourceOptions, isDirectory: boolean): Promise<Row[]> {
  if (!isDirectory) return readRows(options.dataset, options.dataset)
  const files = (await walk(options.dataset)).map((f) => relative(options.dataset, f).split('\\').join('/'))
  const selected = selectNativeFiles(files, options.subset ?? 'default', options.split ?? 'train')
  if (selected.length === 0) {
    throw new DatasetError(
      `hf: --dataset-path ${options.dataset} holds no parquet/JSON/JSONL file for split ${options.split ?? 'train'}`,
    )
  }
  const rows: Row[] = []
  for (const file of order(selected, options)) {
    if (rows.length >= options.minRows) break
    rows.push(...(await readRows(join(options.dataset, file), file)))
  }
  return rows
}

/** Rows of one parquet, JSON or JSONL file. */
export async function readRows(path: string, name: string): Promise<Row[]> {
  const bytes = await readFile(path)
  if (name.endsWith('.parquet')) {
    try {
      const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer
      // utf8: false keeps unannotated BYTE_ARRAY columns (an image's `bytes`) binary; strings are annotated.
      return (await parquetReadObjects({ file, utf8: false })) as Row[]
    } catch (error) {
      throw new DatasetError(`hf: ${path}: not a readable parquet file (${(error as Error).message})`, {
        cause: error,
      })
    }
  }
  return readJsonRows(path, bytes.toString('utf8'))
}

function order(paths: string[], options: HfSourceOptions): string[] {
  const sorted = [...paths].sort()
  return options.disableShuffle ? sorted : createRng(options.seed).shuffle(sorted)
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  const files: string[] = []
  for (const entry of entries) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...(await walk(full)))
    else files.push(full)
  }
  return files
}
