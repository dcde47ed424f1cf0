import { Agent, type Dispatcher, EnvHttpProxyAgent, setGlobalDispatcher } from 'undici'

/** The proxy variables of an environment, read as aiohttp's `trust_env` reads them. */
export interface ProxyEnv {
  /** `http_proxy`, else `HTTP_PROXY`. */
  httpProxy?: string
  /** `https_proxy`, else `HTTPS_PROXY`. */
  httpsProxy?: string
  /** `no_proxy`, else `NO_PROXY`: hosts (and `.domains`, `host:port`, `*`) reached directly. */
  noProxy?: string
}

/**
 * The proxy settings of `env`, or undefined when neither an HTTP nor an HTTPS proxy is set.
 * Lowercase names win over uppercase ones, as in Python's `urllib.request.getproxies`, which
 * aiohttp's `trust_env=True` (the Python benchmark's session) reads.
 */
export function proxyEnvFrom(env: Readonly<Record<string, string | undefined>>): ProxyEnv | undefined {
  const pick = (name: string): string | undefined =>
    env[name.toLowerCase()] || env[name.toUpperCase()] || undefined
  const httpProxy = pick('http_proxy')
  const httpsProxy = pick('https_proxy')
  if (!httpProxy && !httpsProxy) return undefined
  const noProxy = pick('no_proxy')
  return {
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    ...(noProxy ? { noProxy } : {}),
  }
}

/**
 * An undici dispatcher with `options` that sends through the proxies of `env` (undici's
 * `EnvHttpProxyAgent`: a CONNECT tunnel per socket), or a plain `Agent` when no proxy is set.
 * `insecure` also skips the certificate check of an https target behind a proxy.
 */
export function createDispatcher(
  options: Agent.Options,
  env: Readonly<Record<string, string | undefined>>,
  insecure = false,
): Dispatcher {
  const proxy = proxyEnvFrom(env)
  if (!proxy) return new Agent(options)
  // Deviation: with only HTTP_PROXY set, undici also tunnels https requests through it; Python's
  // urllib (aiohttp trust_env) sends them direct.
  return new EnvHttpProxyAgent({
    ...options,
    // An empty string, not undefined: undici would read process.env itself.
    httpProxy: proxy.httpProxy ?? '',
    httpsProxy: proxy.httpsProxy ?? '',
    noProxy: proxy.noProxy ?? '',
    ...(insecure ? { requestTls: { rejectUnauthorized: false } } : {}),
  })
}

/**
 * Sends undici's module-level requests (the `/v1/models`, `/metrics`, `/tokenize`, hub and reset
 * probes) through the proxies of `env`, when one is set. For the CLI process only: a library must
 * not replace its host's global dispatcher. Returns whether a proxy was installed.
 */
export function installEnvProxy(env: Readonly<Record<string, string | undefined>>): boolean {
  if (!proxyEnvFrom(env)) return false
  setGlobalDispatcher(createDispatcher({}, env))
  return true
}
