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

/** The hub endpoint: `HF_ENDPOINT` without a trailing slash, else `https://huggingface.co`. */
export function hubEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  return (env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, '')
}

/** `HF_HUB_OFFLINE` set to a true value (`1`, `ON`, `YES`, `TRUE`, as huggingface_hub reads it). */
export function isHubOffline(env: NodeJS.ProcessEnv = process.env): boolean {
  return ['1', 'ON', 'YES', 'TRUE'].includes((env.HF_HUB_OFFLINE ?? '').trim().toUpperCase())
}

/**
 * The token sent as `Authorization: Bearer`: `HF_TOKEN`, else the file huggingface_hub's
 * `hf auth login` writes (`HF_TOKEN_PATH`, else `$HF_HOME/token`, else `~/.cache/huggingface/token`).
 */
export async function hubToken(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (env.HF_TOKEN?.trim()) return env.HF_TOKEN.trim()
  const home = env.HF_HOME || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface')
  const path = env.HF_TOKEN_PATH || join(home, 'token')
  const token = await readFile(path, 'utf8').catch(() => undefined)
  return token?.trim() || undefined
}

/** The folder of one repository in the cache: `{cache}/models--org--name`. */
export function repoCacheDir(
  repoId: string,
  type: 'model' | 'dataset' = 'model',
  env: NodeJS.ProcessEnv = process.env,
): string {
  return join(hubCacheDir(env), repoFolderName(repoId, type))
}
