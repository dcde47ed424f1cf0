import { describe, expect, it } from 'vitest'
import { argvIssues, resolveArgv } from '../../test/config-doors.ts'

const CHAT = ['--backend', 'openai-chat', '--multi-turn']
const SHAREGPT = [...CHAT, '--dataset-name', 'sharegpt', '--dataset-path', 'x.json']

describe('--lora-modules and --lora-assignment', () => {
  it('reads the adapter names and the assignment (random by default)', () => {
    expect(resolveArgv(['--lora-modules', 'a', 'b']).lora).toEqual({
      modules: ['a', 'b'],
      assignment: 'random',
    })
    expect(resolveArgv(['--lora-modules', 'a', '--lora-assignment', 'round-robin']).lora).toEqual({
      modules: ['a'],
      assignment: 'round-robin',
    })
    expect(resolveArgv([]).lora).toBeUndefined()
  })

  it('refuses pooling backends, empty names and unknown assignments', () => {
    expect(argvIssues(['--backend', 'openai-embeddings', '--lora-modules', 'a'])).toEqual([
      '--lora-modules cannot be used with the openai-embeddings backend: pooling backends take no LoRA adapter',
    ])
    expect(argvIssues(['--lora-modules', 'a', ' '])).toEqual([
      '--lora-modules names must not be empty (got "a  ")',
    ])
    expect(argvIssues(['--lora-modules', 'a', '--lora-assignment', 'sticky'])).toEqual([
      '--lora-assignment must be one of random, round-robin (got "sticky")',
    ])
  })
})

describe('--max-model-len', () => {
  // Vectors of the Rust port's config tests (config.rs): 0 is an error; 4096 is kept.
  it('keeps 4096 and refuses 0', () => {
    expect(resolveArgv(['--max-model-len', '4096']).maxModelLen).toBe(4096)
    expect(argvIssues(['--max-model-len', '0'])).toEqual(['--max-model-len must be at least 1 (got 0)'])
  })
})

describe('--sweep-summary-percentiles', () => {
  // After the Rust port's config tests (config.rs); servebench computes no p90 unless asked: Python's set, not Rust's.
  it('deduplicates and merges into the computed percentiles', () => {
    const config = resolveArgv(['--metric-percentiles', '99,95', '--sweep-summary-percentiles', '90,95,90'])
    expect(config.sweepSummaryPercentiles).toEqual([90, 95])
    expect(config.metricPercentiles).toEqual([99, 95, 90])
    expect(resolveArgv([]).sweepSummaryPercentiles).toBeUndefined()
    expect(argvIssues(['--sweep-summary-percentiles', '101'])).toEqual([
      '--sweep-summary-percentiles must be comma-separated numbers in [0, 100] (got "101")',
    ])
  })
})

describe('--reset-prefix-cache, --profile-batch-threshold and --profile-duration', () => {
  it('reads the threshold with a 5 s default duration, only with --profile', () => {
    expect(resolveArgv(['--reset-prefix-cache']).resetPrefixCache).toBe(true)
    expect(resolveArgv(['--profile', '--profile-batch-threshold', '8']).profileThreshold).toEqual({
      runningRequests: 8,
      durationS: 5,
    })
    expect(
      resolveArgv(['--profile', '--profile-batch-threshold', '8', '--profile-duration', '2.5'])
        .profileThreshold,
    ).toEqual({ runningRequests: 8, durationS: 2.5 })
    expect(argvIssues(['--profile-batch-threshold', '8'])).toEqual([
      '--profile-batch-threshold needs --profile',
    ])
    expect(argvIssues(['--profile', '--profile-duration', '2'])).toEqual([
      '--profile-duration needs --profile-batch-threshold',
    ])
    expect(argvIssues(['--profile', '--profile-batch-threshold', '8', '--profile-duration', '0'])).toEqual([
      '--profile-duration must be a number of seconds > 0 (got "0")',
    ])
  })
})

describe('multi-turn over sharegpt and hf', () => {
  // Vectors of the Rust port's config tests (config.rs).
  it('keeps --multi-turn-max-turns as a cap (0 = none) and refuses 1', () => {
    expect(resolveArgv(SHAREGPT).multiTurn).toMatchObject({ numTurns: 3, maxTurns: 0 })
    expect(resolveArgv([...SHAREGPT, '--multi-turn-max-turns', '2']).multiTurn?.maxTurns).toBe(2)
    expect(resolveArgv([...SHAREGPT, '--multi-turn-max-turns', '20']).multiTurn?.maxTurns).toBe(20)
    expect(argvIssues([...SHAREGPT, '--multi-turn-max-turns', '1'])).toEqual([
      '--multi-turn-max-turns must be 0 (no cap) or at least 2 for ShareGPT and hf conversations (got 1)',
    ])
    const hf = [...CHAT, '--dataset-name', 'hf', '--dataset-path', 'org/chat', '--multi-turn-max-turns', '2']
    expect(resolveArgv(hf).multiTurn?.maxTurns).toBe(2)
  })

  it('refuses prefix ratios and datasets other than random, sharegpt and hf', () => {
    expect(argvIssues([...SHAREGPT, '--multi-turn-prefix-global-ratio', '0.1'])).toEqual([
      '--multi-turn-prefix-global-ratio needs --dataset-name random; sharegpt conversations carry their own text (got --dataset-name sharegpt)',
    ])
    expect(argvIssues([...CHAT, '--dataset-name', 'custom', '--dataset-path', 'x.jsonl'])).toEqual([
      '--multi-turn supports --dataset-name random (synthetic conversations), sharegpt or hf (got custom)',
    ])
  })
})
