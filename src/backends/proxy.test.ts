import { describe, expect, it } from 'vitest'
import { proxyEnvFrom } from './proxy.ts'

describe('proxyEnvFrom', () => {
  it('reads the proxy variables, the lowercase name first, as urllib does', () => {
    expect(proxyEnvFrom({})).toBeUndefined()
    expect(proxyEnvFrom({ NO_PROXY: 'localhost', HTTP_PROXY: '' })).toBeUndefined()
    expect(
      proxyEnvFrom({ HTTP_PROXY: 'http://upper:1', http_proxy: 'http://lower:2', NO_PROXY: '127.0.0.1' }),
    ).toEqual({ httpProxy: 'http://lower:2', noProxy: '127.0.0.1' })
    expect(proxyEnvFrom({ HTTPS_PROXY: 'http://p:3', no_proxy: '.internal', NO_PROXY: 'x' })).toEqual({
      httpsProxy: 'http://p:3',
      noProxy: '.internal',
    })
  })
})
