/**
 * The DSL door: `serveBench(name, options)` → the flag values of `servebench serve`, with each
 * flag's DSL path, so that one resolver (`resolve.ts`) validates both doors and names a bad field
 * in the caller's words. Only the shape is checked here (unknown keys, a dataset or load that did
 * not come from a builder, required load fields, `load.trace()`); every value is checked there.
 * A dataset's fields come from its module's table; what a table cannot say (a multi-turn source,
 * `load.trace()` over a timed trace), its module's DSL hook does (`DatasetModule.dsl`).
 */
import { existsSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import {
  ENDPOINT_FIELDS,
  type FieldSpec,
  LOAD_FIELDS,
  OTHER_TOP_KEYS,
  REQUIRED_LOAD_FIELDS,
  SAMPLING_FIELDS,
  TOP_FIELDS,
} from '../config/dsl-fields.ts'
import { type DslContext, type ServeBenchOptions, SUITE_DEFAULT_DATASET } from '../config/dsl-options.ts'
import { type FlagValues, PROXY_VARIABLES } from '../config/resolve.ts'
import { unknownKeyIssues } from '../config/unknown-keys.ts'
import type { DatasetModule, DslDoor } from '../datasets/dataset-module.ts'
import { DATASET_REGISTRY, datasetOf } from '../datasets/registry.ts'
import type { ConfigIssue } from '../errors.ts'

/** What the DSL door hands to the resolver. */
export interface DslFlags {
  /** Flag values, as the CLI parser would produce them (plus `'false'` for an explicit `ignoreEos: false`). */
  flags: FlagValues
  /** The DSL path each flag came from: `--max-concurrency` → `load.concurrency`. */
  paths: ReadonlyMap<string, string>
  /** Shape problems, already named in DSL words. */
  issues: ConfigIssue[]
  /** The environment the resolver reads (`OPENAI_API_KEY` from `endpoint({ apiKey })`). */
  env: Record<string, string | undefined>
  /** `load.trace({ timeScale })`, applied to the resolved dataset by its module (`traceReplay.scale`). */
  traceTimeScale?: number
  /** The dataset's module, whose hooks apply after resolving; undefined when the dataset is not a spec. */
  dataset?: DatasetModule
  /** Texts of the resolver's messages and their DSL words, from the dataset's module (`dsl.words`). */
  words: ReadonlyArray<readonly [string, string]>
}

/** Translates DSL options into flag values; see {@link DslFlags}. */
export function dslToFlags(options: ServeBenchOptions, ctx: DslContext): DslFlags {
  const flags = new Map<string, string | string[] | true>()
  const paths = new Map<string, string>()
  const issues: ConfigIssue[] = []
  const at = (path: string): string => `serveBench('${ctx.name}').${path}`
  const put = (path: string, spec: FieldSpec, value: unknown): void => {
    const text = flagValue(spec, value)
    if (text === undefined) return
    flags.set(spec.flag, text)
    paths.set(spec.flag, path)
  }
  const fields = (
    value: unknown,
    table: Readonly<Record<string, FieldSpec>>,
    prefix: string,
    where: string,
    extra: readonly string[] = [],
  ): void => {
    if (!isObject(value)) {
      issues.push({ path: at(prefix), message: `must be an object (got ${describe(value)})` })
      return
    }
    // A nested option is its dotted fields (`labels.timestamp`): its keys are checked as an object's.
    const nested = new Map<string, string[]>()
    for (const key of Object.keys(table).filter((k) => k.includes('.'))) {
      const [head, ...rest] = key.split('.')
      nested.set(head!, [...(nested.get(head!) ?? []), rest.join('.')])
    }
    const known = [...Object.keys(table).filter((k) => !k.includes('.')), ...nested.keys(), ...extra]
    issues.push(...unknownKeyIssues(value, known, (key) => at(`${prefix}.${key}`), where))
    for (const [head, keys] of nested) {
      const inner = value[head]
      if (inner === undefined) continue
      if (!isObject(inner)) {
        issues.push({ path: at(`${prefix}.${head}`), message: `must be an object (got ${describe(inner)})` })
        continue
      }
      issues.push(
        ...unknownKeyIssues(inner, keys, (key) => at(`${prefix}.${head}.${key}`), `${where} ${head}`),
      )
    }
    for (const [key, spec] of Object.entries(table)) {
      // Every field of the table names its flag, set or not: an issue may be about a default.
      if (!paths.has(spec.flag)) paths.set(spec.flag, `${prefix}.${key}`)
      put(`${prefix}.${key}`, spec, readPath(value, key))
    }
  }

  if (!isObject(options)) {
    issues.push({
      path: `serveBench('${ctx.name}')`,
      message: `options must be an object (got ${describe(options)})`,
    })
    return { flags, paths, issues, env: {}, words: [] }
  }
  const topKnown = [...Object.keys(TOP_FIELDS), ...OTHER_TOP_KEYS]
  issues.push(...unknownKeyIssues(options, topKnown, at, `serveBench options`))
  for (const [key, spec] of Object.entries(TOP_FIELDS)) {
    const value = options[key as keyof ServeBenchOptions]
    if (key === 'ignoreEos' && value === false) {
      flags.set('--ignore-eos', 'false')
      paths.set('--ignore-eos', key)
    } else put(key, spec, value)
  }
  if (options.sampling !== undefined) fields(options.sampling, SAMPLING_FIELDS, 'sampling', 'sampling')
  if (options.label === undefined) {
    flags.set('--label', ctx.name)
    paths.set('--label', 'label')
  }

  // Endpoint, with the face's defaults: the plugin's base URL, the simulator's tokenizer.
  const suiteEndpoint: unknown = options.endpoint ?? { kind: 'endpoint' }
  const ep = isObject(suiteEndpoint) ? { ...ctx.endpointDefaults, ...suiteEndpoint } : suiteEndpoint
  fields(ep, ENDPOINT_FIELDS, 'endpoint', 'endpoint()', ['kind', 'apiKey'])
  if (isObject(ep) && ep.baseUrl === undefined) {
    if (ctx.defaultBaseUrl === undefined) {
      issues.push({
        path: at('endpoint.baseUrl'),
        message:
          'is not set; set it, set SERVEBENCH_BASE_URL, or add the servebench() plugin to run the simulator',
      })
    } else {
      flags.set('--base-url', ctx.defaultBaseUrl)
      paths.set('--base-url', 'endpoint.baseUrl')
      if (ctx.simulator === true && ep.tokenizer === undefined) {
        flags.set('--tokenizer', ctx.simulatorTokenizer ?? 'cl100k_base')
        paths.set('--tokenizer', 'endpoint.tokenizer')
      }
    }
  }
  const apiKey = isObject(ep) && typeof ep.apiKey === 'string' ? ep.apiKey : ctx.env?.OPENAI_API_KEY
  const env: Record<string, string | undefined> = apiKey ? { OPENAI_API_KEY: apiKey } : {}
  // The proxy variables decide whether endpoint.httpTransport 'lean' can be used.
  for (const name of PROXY_VARIABLES) if (ctx.env?.[name]) env[name] = ctx.env[name]

  const ds = (options.dataset ?? SUITE_DEFAULT_DATASET) as unknown
  const dataset = isObject(ds) && typeof ds.kind === 'string' ? datasetOf(ds.kind) : undefined
  const door: DslDoor = {
    set(flag, value, path) {
      flags.set(flag, value)
      paths.set(flag, path)
    },
    fields,
    issue: (path, message) => issues.push({ path: at(path), message }),
    datasetOf,
  }
  if (!isObject(ds) || dataset === undefined) {
    issues.push({ path: at('dataset'), message: 'must come from datasets.<name>(), e.g. datasets.random()' })
  } else {
    door.set('--dataset-name', dataset.datasetName, 'dataset')
    const hook = dataset.dsl
    fields(ds, dataset.fields, 'dataset', `datasets.${dataset.builder}()`, ['kind', ...(hook?.keys ?? [])])
    hook?.toFlags?.(ds, door)
  }

  const traceTimeScale = loadFlags(options.load)
  if (ctx.root !== undefined) resolveDatasetPath(flags, ctx.root)
  return {
    flags,
    paths,
    issues,
    env,
    ...(traceTimeScale !== undefined ? { traceTimeScale } : {}),
    ...(dataset ? { dataset } : {}),
    words: dataset?.dsl?.words ?? [],
  }

  function loadFlags(spec: unknown): number | undefined {
    if (spec === undefined) return undefined
    const kind = isObject(spec) && typeof spec.kind === 'string' ? spec.kind : undefined
    const table = kind !== undefined ? LOAD_FIELDS[kind] : undefined
    if (!isObject(spec) || kind === undefined || table === undefined) {
      issues.push({ path: at('load'), message: 'must come from load.poisson/constant/closed/rampUp/trace()' })
      return undefined
    }
    fields(spec, table, 'load', `load.${kind}()`, kind === 'trace' ? ['kind', 'timeScale'] : ['kind'])
    for (const key of REQUIRED_LOAD_FIELDS[kind] ?? []) {
      if (spec[key] === undefined)
        issues.push({ path: at(`load.${key}`), message: `is required by load.${kind}()` })
    }
    if (kind === 'constant') {
      flags.set('--burstiness', 'inf')
      paths.set('--burstiness', 'load')
    }
    if (kind === 'rampUp' && spec.strategy === undefined) {
      flags.set('--ramp-up-strategy', 'linear')
      paths.set('--ramp-up-strategy', 'load.strategy')
    }
    if (kind !== 'trace') return undefined
    return traceLoad(spec)
  }

  // load.trace() keeps the dataset's own timestamps: its module must replay them (a self-timed
  // trace), and it applies the time scale to the resolved config, so the fingerprint changes with it.
  function traceLoad(spec: Record<string, unknown>): number | undefined {
    const replay = dataset?.dsl?.traceReplay
    if (replay === undefined) {
      const replayable = DATASET_REGISTRY.filter((e) => e.dsl?.traceReplay).map(
        (e) => `datasets.${e.builder}()`,
      )
      issues.push({
        path: at('load'),
        message: `load.trace() replays trace timestamps and needs ${replayable.join(' or ')} (got a '${String(isObject(ds) ? ds.kind : undefined)}' dataset)`,
      })
    } else if (isObject(ds)) {
      const refusal = replay.refuse(ds)
      if (refusal) issues.push({ path: at(refusal.path), message: refusal.message })
    }
    const timeScale = spec.timeScale ?? 1
    if (!(typeof timeScale === 'number' && Number.isFinite(timeScale) && timeScale > 0)) {
      issues.push({
        path: at('load.timeScale'),
        message: `must be a finite number > 0 (got ${describe(timeScale)}); 0.5 replays twice as fast`,
      })
      return undefined
    }
    return timeScale === 1 ? undefined : timeScale
  }
}

/**
 * A relative dataset path resolves from `root` (the Vitest root, as result and baseline folders
 * do), not from the working directory. An `hf` path may be a hub id (`openai/gsm8k`): it is
 * resolved only when that file or folder exists under `root`.
 */
function resolveDatasetPath(flags: Map<string, string | string[] | true>, root: string): void {
  const path = flags.get('--dataset-path')
  if (typeof path !== 'string' || path === '' || isAbsolute(path)) return
  const local = resolve(root, path)
  if (flags.get('--dataset-name') === 'hf' && !existsSync(local)) return
  flags.set('--dataset-path', local)
}

/** The text a flag would carry for `value`, or undefined when the field is unset (or `false`). */
export function flagValue(spec: FieldSpec, value: unknown): string | string[] | true | undefined {
  if (value === undefined) return undefined
  const written = spec.write?.(value)
  if (written !== undefined) return written
  switch (spec.form) {
    case 'switch':
      return value === true ? true : value === false ? undefined : scalar(value)
    case 'offSwitch':
      return value === false ? true : value === true ? undefined : scalar(value)
    case 'csv':
      return Array.isArray(value) ? value.map(scalar).join(',') : scalar(value)
    case 'list':
      return Array.isArray(value) ? value.map(scalar) : [scalar(value)]
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value)
    case 'numberOrJson':
      return isObject(value) ? JSON.stringify(value) : scalar(value)
    case 'pairs':
      return isObject(value) ? Object.entries(value).map(([k, v]) => `${k}=${scalar(v)}`) : [scalar(value)]
    case 'colonPairs':
      return isObject(value) ? Object.entries(value).map(([k, v]) => `${k}:${scalar(v)}`) : [scalar(value)]
    default:
      return scalar(value)
  }
}

function scalar(value: unknown): string {
  if (typeof value === 'number') {
    if (value === Number.POSITIVE_INFINITY) return 'inf'
    if (value === Number.NEGATIVE_INFINITY) return '-inf'
    return String(value)
  }
  if (typeof value === 'string') return value
  return JSON.stringify(value) ?? String(value)
}

function readPath(value: Record<string, unknown>, key: string): unknown {
  let v: unknown = value
  for (const part of key.split('.')) v = isObject(v) ? v[part] : undefined
  return v
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function describe(value: unknown): string {
  return value === null
    ? 'null'
    : Array.isArray(value)
      ? 'an array'
      : typeof value === 'string'
        ? `'${value}'`
        : String(value)
}
