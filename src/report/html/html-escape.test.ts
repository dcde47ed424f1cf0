import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { escapeHtml, jsonForScript } from './html-escape.ts'

describe('escapeHtml', () => {
  it('escapes the five characters that can end text or an attribute value', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    )
  })
})

describe('jsonForScript', () => {
  it('leaves nothing that can end or break a script element, and parses back to the same value', () => {
    const text = fc.oneof(
      fc.string(),
      fc.constantFrom('</script><b>x</b>', '<!-- x -->', 'a\u2028b\u2029c', '&amp; <![CDATA[ ]]>'),
    )
    fc.assert(
      fc.property(fc.array(fc.record({ name: text, value: fc.double() })), (value) => {
        const json = jsonForScript(value)
        expect(json).not.toMatch(/[<>&\u2028\u2029]/)
        expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
    )
  })
})
