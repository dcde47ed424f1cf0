import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  applyToCommand,
  linkedPointsMatch,
  parseLinkVars,
  parseSweepItems,
  pointFolderName,
  sweepItemName,
} from './param-sweep.ts'
import { splitShellWords } from './shell-words.ts'
import { summaryCsv } from './summary-csv.ts'

// Vectors follow vllm/benchmarks/sweep/param_sweep.py and tests/benchmarks/sweep upstream.
describe('parameter sweeps', () => {
  it('replaces a flag spelt either way, appends new ones, and writes booleans and objects as Python', () => {
    const cmd = ['vllm', 'serve', 'm', '--max_num_seqs', '32', '--enable-prefix-caching']
    expect(
      applyToCommand(
        {
          _benchmark_name: 'x',
          'max-num-seqs': 8,
          enable_prefix_caching: false,
          'compilation_config.mode': true,
          speculative_config: { k: 1 },
        },
        cmd,
      ),
    ).toEqual([
      'vllm',
      'serve',
      'm',
      '--max-num-seqs',
      '8',
      '--no-enable-prefix-caching',
      '--compilation-config.mode=true',
      '--speculative-config',
      '{"k":1}',
    ])
  })

  it('reads lists and named objects, names points, and folders them as upstream', () => {
    const named = parseSweepItems({ small: { max_num_seqs: 8 } }, '--serve-params')
    expect(named).toEqual([{ _benchmark_name: 'small', max_num_seqs: 8 }])
    const [serve, bench] = [{ max_num_seqs: 8, dtype: 'a/b' }, { max_concurrency: 2 }]
    expect(sweepItemName(serve)).toBe('max_num_seqs=8-dtype=a/b')
    expect(pointFolderName(serve, bench)).toBe('SERVE--max_num_seqs=8-dtype=a_b-BENCH--max_concurrency=2')
    expect(pointFolderName({}, named[0]!)).toBe('BENCH--small')
    expect(() =>
      parseSweepItems([{ _benchmark_name: 'a' }, { _benchmark_name: 'a' }], '--bench-params'),
    ).toThrow('--bench-params has duplicate _benchmark_name values (a); each must be unique')
    expect(() => parseSweepItems([1], '--bench-params')).toThrow(
      '--bench-params item 0 must be a JSON object (got 1)',
    )
    expect(() => parseSweepItems('x', '--bench-params')).toThrow(
      '--bench-params must hold a JSON list of objects, or an object of named objects',
    )
  })

  it('pairs serve and bench points only where the linked variables are equal', () => {
    const links = parseLinkVars('max_num_seqs=max_concurrency, a = b')
    expect(links).toEqual([
      ['max_num_seqs', 'max_concurrency'],
      ['a', 'b'],
    ])
    expect(linkedPointsMatch({ max_num_seqs: 4, a: 1 }, { max_concurrency: 4, b: 1 }, links)).toBe(true)
    expect(linkedPointsMatch({ max_num_seqs: 4, a: 1 }, { max_concurrency: 8, b: 1 }, links)).toBe(false)
    expect(linkedPointsMatch({ max_num_seqs: 4 }, { max_concurrency: 4 }, links)).toBe(false)
    expect(() => parseLinkVars('a')).toThrow(
      '--link-vars must be SERVE_KEY=BENCH_KEY pairs separated by commas (got "a")',
    )
  })

  it('splits commands as shlex.split does', () => {
    expect(splitShellWords(`node  bin/x.js sim --a 'b c' "d \\"e\\"" f\\ g ''`, '--serve-cmd')).toEqual([
      'node',
      'bin/x.js',
      'sim',
      '--a',
      'b c',
      'd "e"',
      'f g',
      '',
    ])
    expect(() => splitShellWords(`a "b`, '--serve-cmd')).toThrow('--serve-cmd has no closing quotation (")')
    // Words joined with single quotes split back to themselves.
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1 }), { maxLength: 5 }), (words) => {
        const quoted = words.map((w) => `'${w.replaceAll("'", `'"'"'`)}'`).join(' ')
        expect(splitShellWords(quoted, '--x')).toEqual(words)
      }),
    )
  })

  it('writes summary.csv as pandas does: index column, union of columns, float columns with gaps', () => {
    const csv = summaryCsv([
      { completed: 4, duration: 1.5, model: 'm, n', run_number: 0, max_num_seqs: 8 },
      { completed: 4, duration: 2, model: 'm', run_number: 0, max_concurrency: 2, ok: true, l: [1, 'a'] },
    ])
    expect(csv).toBe(
      [
        ',completed,duration,model,run_number,max_num_seqs,max_concurrency,ok,l',
        `0,4,1.5,"m, n",0,8.0,,,`,
        `1,4,2.0,m,0,,2.0,True,"[1, 'a']"`,
        '',
      ].join('\n'),
    )
  })
})
