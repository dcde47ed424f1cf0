import { createHash } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { expect, vi } from 'vitest'
import { startHttpServer } from './server-helpers.ts'

/** One repository the fake hub serves. */
export interface FakeRepo {
  type: 'model' | 'dataset'
  id: string
  /** Head commit of `main` (40 hex). */
  commit: string
  /** Repository files at `main`: path → bytes. Files whose path ends in `.parquet` or `.json` of > 1 KiB are served as LFS. */
  files: Record<string, Buffer | string>
  /** Files under `refs/convert/parquet` (datasets): path → bytes. */
  parquetExport?: Record<string, Buffer>
  /** Commit of `refs/convert/parquet`. */
  parquetCommit?: string
  /** Configs and splits the datasets-server reports (datasets); default from `parquetExport`. */
  splits?: Array<{ config: string; split: string }>
}

/** A dataset repository at commit `ccc…`, with no files unless given. */
export function datasetRepo(id: string, repo: Partial<Omit<FakeRepo, 'type' | 'id'>> = {}): FakeRepo {
  return { type: 'dataset', id, commit: 'c'.repeat(40), files: {}, ...repo }
}

export interface FakeHubOptions {
  repos: FakeRepo[]
  /** When set, every request without `Authorization: Bearer <token>` gets 401. */
  requireToken?: string
}

export interface FakeHub {
  /** `HF_ENDPOINT`. */
  endpoint: string
  /** `SERVEBENCH_HF_DATASETS_SERVER`. */
  datasetsServer: string
  /** Every request, in order: `METHOD path`. */
  requests: string[]
  close(): Promise<void>
}

const LFS_MIN_BYTES = 1024

/** The git blob id the hub sends as the ETag of a regular (non-LFS) file. */
export function gitBlobSha1(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex')
}

/** True when the fake hub serves this file through an LFS redirect to its CDN. */
export function isLfs(path: string, bytes: Buffer): boolean {
  return path.endsWith('.parquet') || bytes.length > LFS_MIN_BYTES
}

/**
 * A local HTTP server that answers like huggingface.co and the datasets-server: resolve URLs
 * (HEAD/GET) with `X-Repo-Commit` and `ETag`, LFS files as a 302 to `/cdn/<sha256>` with
 * `X-Linked-Etag` and `X-Linked-Size`, a renamed repository as a relative 307, 404 with
 * `X-Error-Code`, `/api/{type}s/{repo}/revision/{rev}`, and `/ds/splits`, `/ds/parquet`.
 */
export async function startFakeHub(options: FakeHubOptions): Promise<FakeHub> {
  const requests: string[] = []
  const cdn = new Map<string, Buffer>()
  const server = await startHttpServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    try {
      handle(req, res)
    } catch (error) {
      res.writeHead(500).end(String(error))
    }
  })
  const endpoint = server.url

  function handle(req: IncomingMessage, res: ServerResponse): ServerResponse {
    const url = new URL(req.url ?? '/', endpoint)
    const path = decodeURIComponent(url.pathname)
    if (path.startsWith('/cdn/')) {
      const bytes = cdn.get(path.slice(5))
      if (!bytes) return res.writeHead(404).end()
      res.writeHead(200, { 'content-length': bytes.length })
      return res.end(req.method === 'HEAD' ? undefined : bytes)
    }
    if (options.requireToken && req.headers.authorization !== `Bearer ${options.requireToken}`) {
      return res.writeHead(401, { 'x-error-code': 'GatedRepo' }).end('Unauthorized')
    }
    if (path.startsWith('/ds/')) return datasetsServer(url, res)
    const api = /^\/api\/(models|datasets)\/(.+)\/revision\/([^/]+)$/.exec(path)
    if (api) {
      const repo = findRepo(api[1] === 'datasets' ? 'dataset' : 'model', api[2]!)
      if (!repo) return json(res, 404, { error: 'Repository not found' })
      return json(res, 200, {
        id: repo.id,
        sha: repo.commit,
        siblings: Object.keys(repo.files).map((rfilename) => ({ rfilename })),
      })
    }
    const resolve = /^\/(datasets\/)?(.+?)\/resolve\/(.+)$/.exec(url.pathname)
    if (!resolve) return res.writeHead(404).end()
    const type = resolve[1] ? 'dataset' : 'model'
    const repoId = decodeURIComponent(resolve[2]!)
    // A renamed repository: the hub answers with a relative redirect to the new name.
    if (repoId.endsWith('-old')) {
      const target = url.pathname.replace(`${repoId}/resolve`, `${repoId.slice(0, -4)}/resolve`)
      return res.writeHead(307, { location: target }).end()
    }
    const [rawRevision, ...rest] = resolve[3]!.split('/')
    const revision = decodeURIComponent(rawRevision!)
    const filename = rest.map(decodeURIComponent).join('/')
    const repo = findRepo(type, repoId)
    if (!repo) return res.writeHead(404, { 'x-error-code': 'RepoNotFound' }).end()
    const converted = revision === 'refs/convert/parquet'
    const commit = converted ? (repo.parquetCommit ?? repo.commit) : repo.commit
    if (!converted && revision !== 'main' && revision !== repo.commit) {
      return res.writeHead(404, { 'x-error-code': 'RevisionNotFound' }).end()
    }
    const raw = converted ? repo.parquetExport?.[filename] : repo.files[filename]
    if (raw === undefined) {
      return res.writeHead(404, { 'x-error-code': 'EntryNotFound', 'x-repo-commit': commit }).end()
    }
    const bytes = Buffer.from(raw)
    if (isLfs(filename, bytes)) {
      const oid = sha256(bytes)
      cdn.set(oid, bytes)
      res.writeHead(302, {
        location: `${endpoint}/cdn/${oid}`,
        'x-repo-commit': commit,
        'x-linked-etag': `"${oid}"`,
        'x-linked-size': String(bytes.length),
        etag: `"${gitBlobSha1(Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${oid}`))}"`,
      })
      return res.end()
    }
    res.writeHead(200, {
      'x-repo-commit': commit,
      etag: `"${gitBlobSha1(bytes)}"`,
      'content-length': bytes.length,
    })
    return res.end(req.method === 'HEAD' ? undefined : bytes)
  }

  function datasetsServer(url: URL, res: ServerResponse): ServerResponse {
    const repo = findRepo('dataset', url.searchParams.get('dataset') ?? '')
    if (!repo) return json(res, 404, { error: 'The dataset does not exist.' })
    const exported = Object.keys(repo.parquetExport ?? {})
    const splits =
      repo.splits ??
      [...new Set(exported.map((p) => p.split('/').slice(0, 2).join('/')))].map((key) => {
        const [config, split] = key.split('/')
        return { config: config!, split: split! }
      })
    if (url.pathname === '/ds/splits') {
      return json(res, 200, {
        splits: splits.map((s) => ({ dataset: repo.id, ...s })),
        pending: [],
        failed: [],
      })
    }
    if (url.pathname === '/ds/parquet') {
      const files = exported.map((p) => {
        const [config, split, filename] = p.split('/')
        return {
          dataset: repo.id,
          config,
          split,
          url: `${endpoint}/datasets/${repo.id}/resolve/refs%2Fconvert%2Fparquet/${p}`,
          filename,
          size: repo.parquetExport![p]!.length,
        }
      })
      return json(res, 200, { parquet_files: files, pending: [], failed: [], partial: false })
    }
    return res.writeHead(404).end()
  }

  function findRepo(type: 'model' | 'dataset', id: string): FakeRepo | undefined {
    return options.repos.find((r) => r.type === type && r.id === id)
  }

  return {
    endpoint,
    datasetsServer: `${endpoint}/ds`,
    requests,
    close: server.close,
  }
}

function json(res: ServerResponse, status: number, body: unknown): ServerResponse {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  return res.end(text)
}

/**
 * Points the Hugging Face variables at `hub` with `home` as HF_HOME, and clears those that would
 * send requests elsewhere (a token, offline mode, another cache). Undone by `vi.unstubAllEnvs()`.
 */
export function stubHubEnv(hub: Pick<FakeHub, 'endpoint' | 'datasetsServer'>, home: string): void {
  vi.stubEnv('HF_HOME', home)
  vi.stubEnv('HF_HUB_CACHE', '')
  vi.stubEnv('HF_ENDPOINT', hub.endpoint)
  vi.stubEnv('SERVEBENCH_HF_DATASETS_SERVER', hub.datasetsServer)
  vi.stubEnv('HF_TOKEN', '')
  vi.stubEnv('HF_HUB_OFFLINE', '')
}

/**
 * Sets HF_HUB_OFFLINE=1 and runs `read`, which must be answered from the cache alone: the test fails
 * on any request it sends `hub`. Returns what `read` gave.
 */
export async function fromCacheOnly<T>(hub: Pick<FakeHub, 'requests'>, read: () => Promise<T>): Promise<T> {
  vi.stubEnv('HF_HUB_OFFLINE', '1')
  const before = hub.requests.length
  const value = await read()
  expect(hub.requests.slice(before)).toEqual([])
  return value
}
