import { randomUUID } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { lstat, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { request } from 'undici'
import { AUX_BODY_LIMITS, readBodyHead, readTextCapped } from '../response-body.ts'
import { findCachedFile, hubEndpoint, hubToken, isHubOffline, repoCacheDir } from './hub-cache.ts'

export type RepoType = 'model' | 'dataset'

/** Why a hub call failed; callers turn it into their own `TokenizerError` or `DatasetError`. */
export type HubErrorKind = 'offline' | 'auth' | 'repo-not-found' | 'entry-not-found' | 'network' | 'http'

export class HubError extends Error {
  readonly kind: HubErrorKind
  constructor(kind: HubErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.kind = kind
    this.name = 'HubError'
  }
}

export interface HubFileOptions {
  type?: RepoType
  /** A branch, tag, `refs/convert/parquet` or a 40-hex commit. @default 'main' */
  revision?: string
  env?: NodeJS.ProcessEnv
}

const COMMIT_RE = /^[0-9a-f]{40}$/
const MAX_REDIRECTS = 5
const USER_AGENT = 'servebench (huggingface_hub-compatible cache)'

/**
 * Returns the local path of `filename` in a hub repository, downloading it into the cache when
 * needed, exactly as `huggingface_hub.hf_hub_download` lays it out:
 * `{cache}/{type}s--org--name/blobs/<etag>`, `refs/<revision>` holding the commit, and
 * `snapshots/<commit>/<filename>` a relative symlink to the blob. With `HF_HUB_OFFLINE` the
 * network is never touched; when the hub cannot be reached, a cached copy is used.
 * Throws a `HubError`.
 */
export async function hubFile(
  repoId: string,
  filename: string,
  options: HubFileOptions = {},
): Promise<string> {
  const type = options.type ?? 'model'
  const revision = options.revision ?? 'main'
  const env = options.env ?? process.env
  const cacheOptions = { type, revision, env }
  if (COMMIT_RE.test(revision)) {
    const cached = await findCachedFile(repoId, filename, cacheOptions)
    if ('path' in cached) return cached.path
    // transformers skips an optional file the hub already said is missing at this commit.
    if (await exists(join(repoCacheDir(repoId, type, env), '.no_exist', revision, filename))) {
      throw new HubError(
        'entry-not-found',
        `${filename} is recorded as missing at ${revision} of ${type} ${repoId} (.no_exist in the cache)`,
      )
    }
  }
  if (isHubOffline(env)) {
    const cached = await findCachedFile(repoId, filename, cacheOptions)
    if ('path' in cached) return cached.path
    throw offlineError(repoId, filename, type, revision, env)
  }

  const url = resolveUrl(repoId, filename, type, revision, env)
  const auth = await authHeaders(env)
  let meta: FileMetadata
  try {
    meta = await fetchMetadata(url, auth)
  } catch (error) {
    if (!(error instanceof HubError) || error.kind !== 'network') {
      if (error instanceof HubError && error.kind === 'entry-not-found')
        await markMissing(error, repoId, type, filename, env)
      throw error
    }
    // huggingface_hub falls back to the cache when the hub cannot be reached.
    const cached = await findCachedFile(repoId, filename, cacheOptions)
    if ('path' in cached) return cached.path
    throw error
  }

  const repoDir = repoCacheDir(repoId, type, env)
  if (revision !== meta.commit) await writeRef(repoDir, revision, meta.commit)
  const blobPath = join(repoDir, 'blobs', meta.etag)
  const pointerPath = join(repoDir, 'snapshots', meta.commit, filename)
  if (await exists(pointerPath)) return pointerPath
  if (!(await exists(blobPath))) await downloadBlob(meta, blobPath, auth, env)
  await mkdir(dirname(pointerPath), { recursive: true })
  await rm(pointerPath, { force: true })
  await symlink(relative(dirname(pointerPath), blobPath), pointerPath)
  return pointerPath
}

/**
 * Lists the files of a repository at `revision` (`GET {endpoint}/api/{type}s/{repo}/revision/{rev}`);
 * offline, the files of the cached snapshot. Throws a `HubError`.
 */
export async function listHubFiles(repoId: string, options: HubFileOptions = {}): Promise<string[]> {
  const type = options.type ?? 'model'
  const revision = options.revision ?? 'main'
  const env = options.env ?? process.env
  if (isHubOffline(env)) {
    const repoDir = repoCacheDir(repoId, type, env)
    const commit = COMMIT_RE.test(revision)
      ? revision
      : (await readFile(join(repoDir, 'refs', revision), 'utf8').catch(() => '')).trim()
    const files = commit ? await walk(join(repoDir, 'snapshots', commit)) : []
    if (files.length === 0) throw offlineError(repoId, '(any file)', type, revision, env)
    return files
  }
  const url = `${hubEndpoint(env)}/api/${type}s/${repoId}/revision/${encodeURIComponent(revision)}`
  const body = await getJson(url, await authHeaders(env))
  const siblings = (body as { siblings?: unknown }).siblings
  if (!Array.isArray(siblings)) throw new HubError('http', `GET ${url} answered no "siblings" list`)
  return siblings
    .map((s) => (s as { rfilename?: unknown }).rfilename)
    .filter((name): name is string => typeof name === 'string')
}

/** GET a JSON document from the hub or the datasets-server, with the hub token. Throws a `HubError`. */
export async function getJson(url: string, headers: Record<string, string>): Promise<unknown> {
  const response = await send(url, 'GET', headers)
  const ok = response.statusCode >= 200 && response.statusCode < 300
  let text: string
  try {
    text = ok
      ? await readTextCapped(response.body, AUX_BODY_LIMITS.hubJsonBytes, `GET ${url}`, {
          contentLength: response.headers['content-length'],
        })
      : await readBodyHead(response.body, AUX_BODY_LIMITS.messageBytes)
  } catch (error) {
    throw new HubError('network', (error as Error).message, { cause: error })
  }
  checkStatus(url, response.statusCode, response.headers, text)
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HubError('http', `GET ${url} answered invalid JSON: ${text.slice(0, 200)}`, { cause: error })
  }
}

/** `Authorization: Bearer <token>` when a token is configured, else nothing. */
export async function authHeaders(env: NodeJS.ProcessEnv = process.env): Promise<Record<string, string>> {
  const token = await hubToken(env)
  return token ? { authorization: `Bearer ${token}` } : {}
}

/** The resolve URL of a file: `{endpoint}/[datasets/]{repo}/resolve/{revision}/{file}`. */
export function resolveUrl(
  repoId: string,
  filename: string,
  type: RepoType,
  revision: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const prefix = type === 'dataset' ? 'datasets/' : ''
  const path = filename.split('/').map(encodeURIComponent).join('/')
  return `${hubEndpoint(env)}/${prefix}${repoId}/resolve/${encodeURIComponent(revision)}/${path}`
}

interface FileMetadata {
  commit: string
  etag: string
  size?: number
  /** Where the bytes are: the resolve URL, or the redirect target (a CDN) for LFS files. */
  location: string
}

// huggingface_hub `get_hf_file_metadata`: a HEAD that follows only relative redirects (renamed
// repositories), so an LFS redirect to the CDN is read, not followed.
async function fetchMetadata(url: string, auth: Record<string, string>): Promise<FileMetadata> {
  let current = url
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const response = await send(current, 'HEAD', { ...auth, 'accept-encoding': 'identity' })
    await response.body.dump()
    const headers = response.headers
    const location = header(headers, 'location')
    if (response.statusCode >= 300 && response.statusCode < 400 && location && isRelative(location)) {
      current = new URL(location, current).toString()
      continue
    }
    if (response.statusCode < 300 || response.statusCode >= 400)
      checkStatus(url, response.statusCode, headers, '')
    const commit = header(headers, 'x-repo-commit')
    const rawEtag = header(headers, 'x-linked-etag') ?? header(headers, 'etag')
    if (!commit || !rawEtag) {
      throw new HubError('http', `HEAD ${url} answered without X-Repo-Commit or ETag; is HF_ENDPOINT a hub?`)
    }
    const size = Number(header(headers, 'x-linked-size') ?? header(headers, 'content-length'))
    return {
      commit,
      etag: rawEtag.replace(/^W\//, '').replaceAll('"', ''),
      ...(Number.isFinite(size) && size > 0 ? { size } : {}),
      location: response.statusCode >= 300 && location ? new URL(location, current).toString() : current,
    }
  }
  throw new HubError('http', `HEAD ${url}: more than ${MAX_REDIRECTS} redirects`)
}

async function downloadBlob(
  meta: FileMetadata,
  blobPath: string,
  auth: Record<string, string>,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  let current = meta.location
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    // The token goes to the hub only, never to a CDN on another origin.
    const sameOrigin = new URL(current).origin === new URL(hubEndpoint(env)).origin
    const response = await send(current, 'GET', sameOrigin ? auth : {})
    const location = header(response.headers, 'location')
    if (response.statusCode >= 300 && response.statusCode < 400 && location) {
      await response.body.dump()
      current = new URL(location, current).toString()
      continue
    }
    if (response.statusCode !== 200) {
      const text = await readBodyHead(response.body, AUX_BODY_LIMITS.messageBytes)
      checkStatus(current, response.statusCode, response.headers, text)
    }
    await mkdir(dirname(blobPath), { recursive: true })
    // Atomic: other processes see either no blob or the whole blob.
    const temp = `${blobPath}.${randomUUID()}.incomplete`
    try {
      await pipeline(response.body, createWriteStream(temp))
      const written = (await stat(temp)).size
      if (meta.size !== undefined && written !== meta.size) {
        throw new HubError('network', `GET ${current}: got ${written} bytes, expected ${meta.size}`)
      }
      await rename(temp, blobPath)
    } catch (error) {
      await rm(temp, { force: true })
      if (error instanceof HubError) throw error
      throw new HubError('network', `GET ${current} failed: ${(error as Error).message}`, { cause: error })
    }
    return
  }
  throw new HubError('http', `GET ${meta.location}: more than ${MAX_REDIRECTS} redirects`)
}

async function send(url: string, method: 'GET' | 'HEAD', headers: Record<string, string>) {
  try {
    return await request(url, { method, headers: { 'user-agent': USER_AGENT, ...headers } })
  } catch (error) {
    throw new HubError('network', `${method} ${url} failed: ${(error as Error).message}`, { cause: error })
  }
}

function checkStatus(
  url: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  body: string,
): void {
  if (status >= 200 && status < 300) return
  const errorCode = header(headers, 'x-error-code')
  if (status === 401 || status === 403) {
    throw new HubError(
      'auth',
      `${url} answered ${status}: the repository is private or gated; set HF_TOKEN to a token that can read it`,
    )
  }
  if (status === 404 && errorCode === 'EntryNotFound') {
    const error = new HubError('entry-not-found', `${url} answered 404: no such file in the repository`)
    const commit = header(headers, 'x-repo-commit')
    if (commit) Object.assign(error, { commit })
    throw error
  }
  if (status === 404)
    throw new HubError('repo-not-found', `${url} answered 404: no such repository or revision`)
  const kind: HubErrorKind = status >= 500 ? 'network' : 'http'
  throw new HubError(kind, `${url} answered ${status}${body ? `: ${body.slice(0, 200)}` : ''}`)
}

// huggingface_hub records a file known to be missing at a commit under `.no_exist/<commit>/`.
async function markMissing(
  error: HubError,
  repoId: string,
  type: RepoType,
  filename: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const commit = (error as HubError & { commit?: string }).commit
  if (!commit || !COMMIT_RE.test(commit)) return
  const path = join(repoCacheDir(repoId, type, env), '.no_exist', commit, filename)
  await mkdir(dirname(path), { recursive: true }).catch(() => undefined)
  await writeFile(path, '').catch(() => undefined)
}

async function writeRef(repoDir: string, revision: string, commit: string): Promise<void> {
  const refPath = join(repoDir, 'refs', revision)
  const current = await readFile(refPath, 'utf8').catch(() => undefined)
  if (current === commit) return
  await mkdir(dirname(refPath), { recursive: true })
  const temp = `${refPath}.${randomUUID()}.tmp`
  await writeFile(temp, commit)
  await rename(temp, refPath)
}

function offlineError(
  repoId: string,
  filename: string,
  type: RepoType,
  revision: string,
  env: NodeJS.ProcessEnv,
): HubError {
  const repoDir = repoCacheDir(repoId, type, env)
  const what = filename === '(any file)' ? 'no cached snapshot' : `${filename} is not cached`
  return new HubError(
    'offline',
    `HF_HUB_OFFLINE is set and ${what} for ${type} ${repoId} (revision ${revision}). ` +
      `Download it first without HF_HUB_OFFLINE (or with \`hf download ${repoId}` +
      `${filename === '(any file)' ? '' : ` ${filename}`}${type === 'dataset' ? ' --repo-type dataset' : ''}\`); ` +
      `it is cached at ${join(repoDir, 'snapshots', '<commit>', filename === '(any file)' ? '' : filename)}`,
  )
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

function isRelative(location: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(location) && !location.startsWith('//')
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false
}

async function walk(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  const files: string[] = []
  for (const entry of entries) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name
    const full = join(dir, entry.name)
    const info = entry.isSymbolicLink() ? await stat(full).catch(() => undefined) : await lstat(full)
    if (info?.isDirectory()) files.push(...(await walk(full, rel)))
    else if (info?.isFile()) files.push(rel)
  }
  return files.sort()
}
