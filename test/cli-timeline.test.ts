import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { runCli, test } from './helpers.ts'

const count = (text: string, needle: string): number => text.split(needle).length - 1

describe('servebench serve --plot-timeline', () => {
  test('writes <result name>.timeline.html next to the result, with one bar per request', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--tokenizer',
      'cl100k_base',
      '--random-input-len',
      '32',
      '--random-output-len',
      '8',
      '--num-prompts',
      '12',
      '--max-concurrency',
      '4',
      '--disable-tqdm',
      '--save-result',
      '--save-detailed',
      '--result-dir',
      tmpDir,
      '--label',
      'tl <run>',
      '--plot-timeline',
      // The simulator's ITL is 10 ms (gaps of chunks read together are shorter); none reaches 500 ms.
      '--timeline-itl-thresholds',
      '8,500',
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    const files = (await readdir(tmpDir)).sort()
    expect(files).toHaveLength(2)
    const [json, html] = files as [string, string]
    expect(json).toMatch(/^tl <run>-infqps-concurrency4-sim-model-\d{8}-\d{6}\.json$/)
    expect(html).toBe(json.replace(/\.json$/, '.timeline.html'))
    expect(run.stdout).toContain(`servebench: timeline written to ${join(tmpDir, html)}\n`)

    const page = await readFile(join(tmpDir, html), 'utf8')
    expect(page).toContain('<h1>tl &lt;run&gt;</h1>')
    expect(count(page, '<rect class="ttft"')).toBe(12)
    expect(count(page, '<rect class="decode"')).toBe(12)
    // One highlight per gap of the saved result at or above 8 ms; none reaches 500 ms.
    const result = JSON.parse(await readFile(join(tmpDir, json), 'utf8')) as { itls: number[][] }
    const gaps = result.itls.flat()
    const slow = gaps.filter((g) => g * 1000 >= 8).length
    expect(gaps).toHaveLength(12 * 7)
    expect(slow).toBeGreaterThan(0)
    expect(count(page, '<rect class="slow"')).toBe(slow)
    expect(count(page, '<rect class="very-slow"')).toBe(0)
    expect(page).toContain(`<dt>ITL gaps ≥ 8 ms</dt><dd>${slow} <small>of 84</small></dd>`)
  })

  test('writes the page without --save-result, not for pooling runs, and rejects bad thresholds', async ({
    sim,
    tmpDir,
  }) => {
    const run = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--tokenizer',
      'cl100k_base',
      '--random-input-len',
      '16',
      '--random-output-len',
      '4',
      '--num-prompts',
      '3',
      '--disable-tqdm',
      '--result-dir',
      tmpDir,
      '--plot-timeline',
    ])
    expect(run.code).toBe(0)
    const files = await readdir(tmpDir)
    expect(files).toHaveLength(1)
    expect(files[0]).toMatch(/^openai-infqps-sim-model-\d{8}-\d{6}\.timeline\.html$/)
    const page = await readFile(join(tmpDir, files[0]!), 'utf8')
    expect(page).toContain('decode (ITL &lt; 25 ms)')

    // A pooling run has no token stream to draw.
    const embed = await runCli([
      'serve',
      '--base-url',
      sim.url,
      '--backend',
      'openai-embeddings',
      '--tokenizer',
      'cl100k_base',
      '--random-input-len',
      '16',
      '--num-prompts',
      '2',
      '--disable-tqdm',
      '--result-dir',
      join(tmpDir, 'embed'),
      '--plot-timeline',
    ])
    expect(embed.code).toBe(0)
    expect(embed.stderr).toContain(
      'servebench: --plot-timeline: a pooling run has no token stream; no timeline written\n',
    )

    const bad = await runCli(['serve', '--plot-timeline', '--timeline-itl-thresholds', '50,25'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toBe(
      'servebench: --timeline-itl-thresholds must be two ascending numbers of ms separated by a comma, such as 25,50 (got "50,25")\n',
    )
  })
})
