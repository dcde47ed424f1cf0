import { describe, expect, it } from 'vitest'
import { checkResultNames, safeFileNamePart } from './file-names.ts'

describe('safeFileNamePart', () => {
  it('replaces separators and control characters, and "." and ".."', () => {
    expect(safeFileNamePart('a/b\\c\u0000d\u001be')).toBe('a_b_c_d_e')
    expect(safeFileNamePart('..')).toBe('__')
  })

  it('cuts to a byte length without splitting a character', () => {
    expect(safeFileNamePart('é'.repeat(10), 5)).toBe('éé')
    expect(safeFileNamePart(`a${'😀'.repeat(3)}`, 6)).toBe('a😀')
  })
})

describe('checkResultNames', () => {
  it('accepts names inside the folder, absolute names and subfolders', () => {
    expect(checkResultNames({ resultDir: 'out', resultFilename: 'sub/../x.json', label: 'run 1' })).toEqual(
      [],
    )
    expect(checkResultNames({ resultDir: 'out', resultFilename: '/tmp/x.json' })).toEqual([])
  })

  it('refuses a name that climbs out of the folder, without --result-dir too', () => {
    expect(checkResultNames({ resultFilename: '../x.json' })).toEqual([
      {
        path: '--result-filename',
        message: 'must name a file inside --result-dir (the current folder); "../x.json" climbs out of it',
      },
    ])
  })
})
