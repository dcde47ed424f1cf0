import { describe, expect, it } from 'vitest'
import { assertCompatibleVitestVersion, SUPPORTED_VITEST } from './plugin.ts'

describe('assertCompatibleVitestVersion', () => {
  it.each(['4.1.12', '4.1.20', '4.2.0', '5.0.0', '5.1.2', '5.3.0-beta.1'])('accepts %s', (version) => {
    expect(() => assertCompatibleVitestVersion(version)).not.toThrow()
  })

  it.each(['4.1.11', '4.0.18', '3.2.4', '6.0.0', 'unknown'])('refuses %s, naming the range', (version) => {
    expect(() => assertCompatibleVitestVersion(version)).toThrow(
      `servebench supports vitest ^4.1.12 || ^5.0.0 (found ${version}). Install a supported version: npm i -D vitest@5 (Node 22 or later), or npm i -D vitest@4.1.12 on Node 20`,
    )
  })

  it('states the same range as the peer dependency', async () => {
    const { default: pkg } = await import('../../../package.json', { with: { type: 'json' } })
    expect(pkg.peerDependencies.vitest).toBe(SUPPORTED_VITEST)
  })
})
