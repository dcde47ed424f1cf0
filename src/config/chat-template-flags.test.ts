import { describe, expect, it } from 'vitest'
import { argvIssues, resolveArgv } from '../../test/config-doors.ts'

const HF = ['--dataset-name', 'hf', '--dataset-path', 'vdaita/edit_5k_char']

describe('chat-template, tokenizer-free and Blazedit flags', () => {
  it('reads --chat-template-kwargs as a JSON object', () => {
    const config = resolveArgv(['--chat-template-kwargs', '{"enable_thinking": false}'])
    expect(config.tokenizer.chatTemplateKwargs).toEqual({ enable_thinking: false })
    expect(resolveArgv([]).tokenizer.chatTemplateKwargs).toBeUndefined()
    expect(argvIssues(['--chat-template-kwargs', '[1]'])).toEqual([
      `--chat-template-kwargs must be a JSON object such as '{"temperature": 0}' (got [1])`,
    ])
    expect(argvIssues(['--chat-template-kwargs', '{oops'])[0]).toMatch(
      /^--chat-template-kwargs must be a JSON object \(.+\)$/,
    )
  })

  it('allows --skip-tokenizer-init with custom only, as Python', () => {
    const custom = resolveArgv([
      '--dataset-name',
      'custom',
      '--dataset-path',
      'x.jsonl',
      '--skip-tokenizer-init',
    ])
    expect(custom.tokenizer.skipInit).toBe(true)
    expect(argvIssues(['--skip-tokenizer-init'])).toEqual([
      '--skip-tokenizer-init cannot be used with --dataset-name random: it needs a tokenizer',
    ])
    expect(argvIssues([...HF, '--skip-tokenizer-init'])).toEqual([
      '--skip-tokenizer-init cannot be used with --dataset-name hf: it needs a tokenizer to count prompt tokens',
    ])
  })

  it('reads --skip-chat-template for hf, and the Blazedit distance range', () => {
    expect(resolveArgv(HF).dataset).not.toHaveProperty('blazeditDistance')
    expect(resolveArgv(HF).dataset).not.toHaveProperty('skipChatTemplate')
    expect(resolveArgv([...HF, '--skip-chat-template']).dataset).toMatchObject({ skipChatTemplate: true })
    expect(resolveArgv([...HF, '--blazedit-min-distance', '0.2']).dataset).toMatchObject({
      blazeditDistance: { min: 0.2, max: 1 },
    })
    expect(resolveArgv([...HF, '--blazedit-max-distance', '0.5']).dataset).toMatchObject({
      blazeditDistance: { min: 0, max: 0.5 },
    })
  })

  it('rejects a Blazedit distance outside [0, 1] or an empty range', () => {
    expect(argvIssues([...HF, '--blazedit-min-distance', '1.5', '--blazedit-max-distance', '-1'])).toEqual([
      '--blazedit-min-distance must be between 0 and 1 (got 1.5)',
      '--blazedit-max-distance must be between 0 and 1 (got -1)',
    ])
    expect(argvIssues([...HF, '--blazedit-min-distance', '0.6', '--blazedit-max-distance', '0.4'])).toEqual([
      '--blazedit-min-distance must not exceed --blazedit-max-distance (got 0.6 > 0.4)',
    ])
  })
})
