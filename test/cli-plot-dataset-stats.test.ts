import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import {
  datasetStatsFigure,
  datasetStatsPng,
  PLOT_COLORS,
  panelPixel,
} from '../src/report/plot/dataset-stats-plot.ts'
import { validateResultFile } from '../src/report/result/schema/index.ts'
import { runCli, test } from './helpers.ts'
import { decodePng } from './png-decode.ts'

describe('servebench serve --plot-dataset-stats', () => {
  test('writes <result name>.dataset_stats.png next to the result, drawn from its input and output lengths', async ({
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
      '40',
      '--random-output-len',
      '12',
      '--random-range-ratio',
      '0.5',
      '--num-prompts',
      '16',
      '--max-concurrency',
      '4',
      '--disable-tqdm',
      '--save-result',
      '--save-detailed',
      '--result-dir',
      tmpDir,
      '--label',
      'stats',
      '--plot-dataset-stats',
    ])
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/)
    expect(run.code).toBe(0)
    const files = (await readdir(tmpDir)).sort()
    expect(files).toHaveLength(2)
    const [png, json] = files as [string, string]
    expect(json).toMatch(/^stats-infqps-concurrency4-sim-model-\d{8}-\d{6}\.json$/)
    expect(png).toBe(json.replace(/\.json$/, '.dataset_stats.png'))
    expect(run.stdout).toContain(`servebench: dataset statistics plot written to ${join(tmpDir, png)}\n`)

    const result = JSON.parse(await readFile(join(tmpDir, json), 'utf8')) as {
      input_lens: number[]
      output_lens: number[]
    }
    expect(validateResultFile(result)).toEqual({ valid: true })
    expect(result.input_lens).toHaveLength(16)
    // The range ratio spreads the lengths over more than one bin.
    expect(new Set(result.input_lens).size).toBeGreaterThan(1)

    const bytes = await readFile(join(tmpDir, png))
    const image = decodePng(bytes)
    expect(image.chunks.every((c) => c.crcOk)).toBe(true)
    expect([image.width, image.height]).toEqual([1400, 1000])
    const lens = { inputLens: result.input_lens, outputLens: result.output_lens }
    // The file is the figure of the saved lengths, byte for byte…
    expect(bytes.equals(datasetStatsPng(lens))).toBe(true)
    // …and each prompt-length bin with requests has its bar where the figure's axes put it.
    const figure = datasetStatsFigure(lens)
    const panel = figure.panels[0]!
    const hist = figure.histograms[0]!
    expect(hist.counts.reduce((a, b) => a + b)).toBe(16)
    for (const [i, count] of hist.counts.entries()) {
      const [x, y] = panelPixel(panel, (hist.edges[i]! + hist.edges[i + 1]!) / 2, count / 2)
      const pixel = image.at(Math.round(x), Math.round(y))
      if (count > 0) expect(pixel).toEqual(PLOT_COLORS.prompt)
      else expect(pixel).not.toEqual(PLOT_COLORS.prompt)
    }
  })

  test('writes the plot without --save-result, and explains why a pooling run has none', async ({
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
      '--plot-dataset-stats',
    ])
    expect(run.code).toBe(0)
    const files = await readdir(tmpDir)
    expect(files).toHaveLength(1)
    expect(files[0]).toMatch(/^openai-infqps-sim-model-\d{8}-\d{6}\.dataset_stats\.png$/)
    expect(decodePng(await readFile(join(tmpDir, files[0]!))).width).toBe(1400)

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
      '--plot-dataset-stats',
    ])
    expect(embed.code).toBe(0)
    expect(embed.stderr).toContain(
      'servebench: --plot-dataset-stats: the run has no input and output lengths to plot (a pooling run has no output lengths); no plot written\n',
    )
    expect(await readdir(join(tmpDir, 'embed')).catch(() => [])).toEqual([])
  })

  test('says that a --num-runs run writes no plot, instead of ignoring the flags', async ({
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
      '2',
      '--num-runs',
      '2',
      '--disable-tqdm',
      '--result-dir',
      tmpDir,
      '--plot-timeline',
      '--plot-dataset-stats',
    ])
    expect(run.code).toBe(0)
    expect(run.stderr).toContain(
      'servebench: --plot-timeline applies to single runs only; no plot is written for this run\n' +
        'servebench: --plot-dataset-stats applies to single runs only; no plot is written for this run\n',
    )
    expect(await readdir(tmpDir)).toEqual([])
  })
})
