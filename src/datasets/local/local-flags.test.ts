import { describe, expect, it } from 'vitest'
import { argvIssues, resolveArgv } from '../../../test/config-doors.ts'

describe('local dataset flags', () => {
  it('lists the valid names for an unknown dataset', () => {
    const [issue] = argvIssues(['--dataset-name', 'nope'])
    expect(issue).toMatch(
      /^--dataset-name must be one of random, .*custom, .*sonnet, prefix_repetition, .*timed_trace, timed-trace/,
    )
    expect(issue).toMatch(/\(got "nope"\)$/)
  })

  // custom_audio reads the lines as custom does, its audio file besides.
  it.each([
    ['custom', []],
    ['custom_audio', ['--backend', 'openai-audio']],
  ])('resolves %s with its defaults and -1', (name, backend) => {
    const file = [...backend, '--dataset-name', name, '--dataset-path', 'a.jsonl']
    expect(resolveArgv(file).dataset).toEqual({
      kind: name,
      path: 'a.jsonl',
      outputLen: 256,
      skipChatTemplate: false,
      disableShuffle: false,
      noOversample: false,
    })
    const perLine = resolveArgv([
      ...file,
      '--custom-output-len',
      '-1',
      '--skip-chat-template',
      '--disable-shuffle',
    ]).dataset
    expect(perLine).toMatchObject({ outputLen: -1, skipChatTemplate: true, disableShuffle: true })
  })

  it('needs a path for custom and a valid output length', () => {
    expect(argvIssues(['--dataset-name', 'custom'])).toEqual([
      '--dataset-path is required with --dataset-name custom (a .jsonl file)',
    ])
    expect(
      argvIssues(['--dataset-name', 'custom', '--dataset-path', 'a.jsonl', '--custom-output-len', '0']),
    ).toEqual(["--custom-output-len must be -1 (each line's output_tokens) or at least 1 (got 0)"])
  })

  it('resolves sonnet, prefix_repetition (both spellings), burstgpt, spec_bench', () => {
    expect(resolveArgv(['--dataset-name', 'sonnet']).dataset).toEqual({
      kind: 'sonnet',
      inputLen: 550,
      outputLen: 150,
      prefixLen: 200,
    })
    for (const name of ['prefix_repetition', 'prefix-repetition']) {
      expect(resolveArgv(['--dataset-name', name, '--output-len', '9']).dataset).toEqual({
        kind: 'prefix_repetition',
        prefixLen: 256,
        suffixLen: 256,
        numPrefixes: 10,
        outputLen: 9,
        disableShuffle: false,
      })
    }
    expect(argvIssues(['--dataset-name', 'prefix_repetition', '--dataset-path', 'x'])).toEqual([
      '--dataset-path cannot be used with --dataset-name prefix_repetition (it generates its prompts)',
    ])
    expect(resolveArgv(['--dataset-name', 'burstgpt', '--dataset-path', 'b.csv']).dataset).toEqual({
      kind: 'burstgpt',
      path: 'b.csv',
    })
    expect(
      resolveArgv([
        '--dataset-name',
        'spec_bench',
        '--dataset-path',
        'q.jsonl',
        '--spec-bench-category',
        'math',
      ]).dataset,
    ).toMatchObject({ kind: 'spec_bench', outputLen: 256, category: 'math' })
  })

  // The Rust port's config test (config.rs): `--speed-bench-dataset-subset throughput_8k` → config Throughput8k, output_len 4096.
  it('resolves speed-bench with the subset alias --speed-bench-config', () => {
    for (const flag of ['--speed-bench-dataset-subset', '--speed-bench-config']) {
      expect(
        resolveArgv(['--dataset-name', 'speed-bench', '--dataset-path', 'd', flag, 'throughput_8k']).dataset,
      ).toEqual({
        kind: 'speed_bench',
        path: 'd',
        subset: 'throughput_8k',
        outputLen: 4096,
        disableShuffle: false,
        noOversample: false,
      })
    }
  })

  // Rust cli.rs: `--speed-bench-config throughput_16k --speed-bench-max-input-len 10240`.
  it('resolves --speed-bench-max-input-len, at least 1', () => {
    const argv = [
      '--dataset-name',
      'speed_bench',
      '--dataset-path',
      'd',
      '--speed-bench-config',
      'throughput_16k',
    ]
    expect(resolveArgv([...argv, '--speed-bench-max-input-len', '10240']).dataset).toMatchObject({
      subset: 'throughput_16k',
      maxInputLen: 10240,
    })
    expect(Object.keys(resolveArgv(argv).dataset)).not.toContain('maxInputLen')
    expect(argvIssues([...argv, '--speed-bench-max-input-len', '0'])).toEqual([
      '--speed-bench-max-input-len must be at least 1 (got 0)',
    ])
  })

  // Vectors of the Rust port's timed_trace config tests (config.rs).
  it('defaults timed_trace to self-timed with ignore_eos', () => {
    const config = resolveArgv(['--dataset-name', 'timed_trace', '--dataset-path', 't.jsonl'])
    expect(config.dataset).toEqual({
      kind: 'timed_trace',
      path: 't.jsonl',
      chunkHashSize: 16,
      secMultiplier: 1,
      labels: {
        timestamp: 'timestamp',
        inputLength: 'input_length',
        outputLength: 'output_length',
        hashIds: 'hash_ids',
      },
      selfTimed: true,
    })
    expect(config.request.ignoreEos).toBe(true)
    const untimed = resolveArgv([
      '--dataset-name',
      'timed-trace',
      '--dataset-path',
      't',
      '--no-self-timed',
      '--request-rate',
      '10',
    ])
    expect(untimed.dataset).toMatchObject({ selfTimed: false })
    expect(untimed.load.requestRate).toBe(10)
  })

  it('rejects schedule flags under self-timing, naming --no-self-timed', () => {
    const hint =
      'has no effect under trace-driven timing (timed_trace sends each request at its trace timestamp); pass --no-self-timed to use it'
    const base = ['--dataset-name', 'timed_trace', '--dataset-path', 't']
    expect(argvIssues([...base, '--request-rate', '10'])).toEqual([`--request-rate ${hint}`])
    expect(argvIssues([...base, '--burstiness', '0.5'])).toEqual([`--burstiness ${hint}`])
    expect(
      argvIssues([
        ...base,
        '--ramp-up-strategy',
        'linear',
        '--ramp-up-start-rps',
        '1',
        '--ramp-up-end-rps',
        '2',
      ]),
    ).toEqual([`--ramp-up-strategy ${hint}`])
    expect(resolveArgv([...base, '--request-rate', 'inf', '--burstiness', '1']).dataset).toMatchObject({
      selfTimed: true,
    })
  })

  it('checks the sec multiplier, the labels and the backend of timed_trace', () => {
    const base = ['--dataset-name', 'timed_trace', '--dataset-path', 't']
    expect(argvIssues([...base, '--timed-trace-sec-multiplier', '0'])).toEqual([
      '--timed-trace-sec-multiplier must be a finite number > 0 (got 0)',
    ])
    expect(argvIssues([...base, '--timed-trace-sec-multiplier', '-0.001'])).toEqual([
      '--timed-trace-sec-multiplier must be a finite number > 0 (got -0.001)',
    ])
    for (const bad of ['inf', 'nan']) {
      expect(argvIssues([...base, '--timed-trace-sec-multiplier', bad])).toEqual([
        `--timed-trace-sec-multiplier must be a number (got "${bad}")`,
      ])
    }
    expect(
      resolveArgv([
        ...base,
        '--timed-trace-label-input-length',
        'input_len',
        '--timed-trace-sec-multiplier',
        '0.001',
      ]).dataset,
    ).toMatchObject({ secMultiplier: 0.001, labels: { inputLength: 'input_len' } })
    expect(argvIssues([...base, '--backend', 'openai-chat'])).toEqual([
      '--backend must be a completions backend (vllm or openai) with --dataset-name timed_trace: it sends token-id prompts (got openai-chat)',
    ])
  })
})
