/**
 * Values the flag resolvers accept one by one but a run cannot honour, refused before anything is
 * sent (exit 2) instead of dropped or sent broken without a word: an empty model name, a JSON key a
 * JavaScript object cannot carry as a body field (`__proto__` was dropped; `constructor` and
 * `prototype` name object internals, never an API field), a `--metadata` key the result itself
 * writes (`completed=999` was overwritten), and a `--request-id-prefix` that cannot be a header
 * value (each request then failed).
 */
import type { BenchConfig } from '../config/bench-config.ts'
import type { ConfigIssue } from '../errors.ts'
import { RESULT_SCHEMA } from '../report/result/schema/index.ts'

/** Keys of a JSON object flag that are refused at any depth. */
const OBJECT_INTERNAL_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

/** Result keys servebench writes itself, beyond the schema's: a metadata key must not be one. */
const RESULT_KEY_PATTERNS = Object.keys(RESULT_SCHEMA.patternProperties).map((source) => new RegExp(source))
const RESULT_KEYS: ReadonlySet<string> = new Set(Object.keys(RESULT_SCHEMA.properties))

/** Every issue of {@link BenchConfig} values the resolvers let through. */
export function checkInputValues(config: BenchConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const { endpoint, request } = config
  if (endpoint.model === '') issues.push({ path: '--model', message: 'must not be empty' })
  if (endpoint.servedModelName === '') {
    issues.push({
      path: '--served-model-name',
      message: 'must not be empty (leave it out to send the model name)',
    })
  }
  issues.push(...internalKeys('--extra-body', request.extraBody))
  if (config.tokenizer.chatTemplateKwargs) {
    issues.push(...internalKeys('--chat-template-kwargs', config.tokenizer.chatTemplateKwargs))
  }
  for (const [key] of config.metadata) {
    if (OBJECT_INTERNAL_KEYS.has(key)) {
      issues.push({ path: '--metadata', message: `key ${JSON.stringify(key)} cannot be a result key` })
    } else if (RESULT_KEYS.has(key) || RESULT_KEY_PATTERNS.some((pattern) => pattern.test(key))) {
      issues.push({
        path: '--metadata',
        message: `key ${JSON.stringify(key)} is a key the result writes itself; pick another name`,
      })
    }
  }
  const prefix = request.requestIdPrefix
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(prefix)) {
    issues.push({
      path: '--request-id-prefix',
      message: `must not hold control characters: it is sent in the x-request-id header (got ${JSON.stringify(prefix)})`,
    })
  }
  return issues
}

/** An issue per object-internal key in `value`, at any depth, named by its dotted path. */
function internalKeys(flag: string, value: unknown): ConfigIssue[] {
  const issues: ConfigIssue[] = []
  const stack: Array<[unknown, string]> = [[value, flag.replace(/^--/, '')]]
  while (stack.length > 0) {
    const [node, path] = stack.pop()!
    if (typeof node !== 'object' || node === null) continue
    // Own keys only, `__proto__` included (JSON.parse makes it an own key; a spread or an
    // Object.assign onto the body would then set the body's prototype, and the field was gone).
    for (const key of Object.keys(node)) {
      const child = `${path}.${key}`
      if (OBJECT_INTERNAL_KEYS.has(key)) {
        issues.push({
          path: flag,
          message: `holds the key ${JSON.stringify(key)} (at ${child}), which servebench does not send: it names a JavaScript object's internals, not a request field`,
        })
      } else stack.push([(node as Record<string, unknown>)[key], child])
    }
  }
  return issues
}
