import { readFile, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'

/**
 * The Hugging Face hub cache folder, as `huggingface_hub` resolves it: `HF_HUB_CACHE`, else
 * `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub`, else `~/.cache/huggingface/hub`.
 */
export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE
  if (env.HF_HOME) return join(env.HF_HOME, 'hub')
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface', 'hub')
}

/** `true` for ids shaped like a hub repository: `name` or `org/name`. */
export function isRepoId(id: string): boolean {
  return /^[\w.-]+(\/[\w.-]+)?$/.test(id) && !id.includes('..') && !id.startsWith('.')
}

/** The cache folder name of a repository: `models--org--name`. */
export function repoFolderName(repoId: string, type: 'model' | 'dataset' = 'model'): string {
  return `${type}s--${repoId.replaceAll('/', '--')}`
}

export interface CachedFileOptions {
  /** A branch or tag name (read from `refs/`) or a 40-hex commit. @default 'main' */
  revision?: string
  type?: 'model' | 'dataset'
  env?: NodeJS.ProcessEnv
}

/**
 * Finds `filename` of a repository in the local hub cache without any network access:
 * `{cache}/models--org--name/snapshots/{refs/<revision>}/{filename}`. Returns the path, or a
 * reason string when it is not there.
 */
export async function findCachedFile(
  repoId: string,
  filename: string,
  options: CachedFileOptions = {},
): Promise<{ path: string } | { reason: string }> {
  const revision = options.revision ?? 'main'
  const repoDir = join(hubCacheDir(options.env), repoFolderName(repoId, options.type))
  let commit = revision
  if (!/^[0-9a-f]{40}$/.test(revision)) {
    const ref = await readFile(join(repoDir, 'refs', revision), 'utf8').catch(() => undefined)
    if (ref === undefined) return { reason: `no ${join(repoDir, 'refs', revision)}` }
    commit = ref.trim()
  }
  const path = join(repoDir, 'snapshots', commit, filename)
  // stat follows the snapshot symlink into blobs/, so a dangling link counts as missing.
  const info = await stat(path).catch(() => undefined)
  return info?.isFile() ? { path } : { reason: `no ${path}` }
}
