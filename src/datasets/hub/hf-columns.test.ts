import { describe, expect, it } from 'vitest'
import {
  detectColumns,
  extractRow,
  pathMatchesSplit,
  readJsonRows,
  sanitizeName,
  selectNativeFiles,
} from './hf-columns.ts'

// Vectors of the Rust port's tests in datasets/hf_dataset.rs (HF detection, sanitize, path_matches_split, select_native_files, read_json_rows).
const user = { role: 'user', content: 'hi' }
const assistant = { role: 'assistant', content: 'hello' }

describe('hf column detection', () => {
  it('detects chat, text, combined and turns layouts', () => {
    expect(detectColumns({ conversation: [user, assistant] })).toEqual({
      kind: 'chat',
      column: 'conversation',
    })
    expect(detectColumns({ messages: [user, assistant] })).toEqual({ kind: 'chat', column: 'messages' })
    expect(
      detectColumns({
        conversations: [
          { from: 'human', value: 'q' },
          { from: 'gpt', value: 'a' },
        ],
      }),
    ).toEqual({
      kind: 'chat',
      column: 'conversations',
    })
    expect(detectColumns({ prompt: 'p', completion: 'c' })).toEqual({
      kind: 'text',
      column: 'prompt',
      outputColumn: 'completion',
    })
    expect(detectColumns({ question: 'q', answer: 'a' })).toEqual({
      kind: 'text',
      column: 'question',
      outputColumn: 'answer',
    })
    expect(detectColumns({ context: 'c', input: 'i', answers: ['a'] })).toEqual({
      kind: 'combined',
      columns: ['context', 'input'],
      outputColumn: 'answers',
    })
    expect(detectColumns({ turns: ['t'], answer: 'a' })).toEqual({
      kind: 'text',
      column: 'turns',
      outputColumn: 'answer',
    })
  })

  it('takes an override column, and lists the columns when the override or any prompt column is missing', () => {
    expect(detectColumns({ my_custom_col: 'x', answer: 'a' }, 'my_custom_col')).toEqual({
      kind: 'text',
      column: 'my_custom_col',
      outputColumn: 'answer',
    })
    expect(detectColumns({ chat: [user] }, 'chat')).toEqual({ kind: 'chat', column: 'chat' })
    expect(() => detectColumns({ a: 1 }, 'b')).toThrow(
      'hf: --hf-text-column "b" is not a column; the columns are: a',
    )
    expect(() => detectColumns({ id: 1, label: 0 })).toThrow(
      'hf: no prompt column found; the columns are: id, label. Expected one of conversation, conversations, ' +
        'messages, turns, context+input, prompt, question, problem, input, text, content, instruction, or name it with --hf-text-column',
    )
  })

  it('extracts the first user turn and the first assistant turn, skipping system and model', () => {
    const row = {
      messages: [{ role: 'system', content: 's' }, { role: 'model', content: 'm' }, user, assistant],
    }
    expect(extractRow(row, { kind: 'chat', column: 'messages' })).toEqual({
      prompt: 'hi',
      completion: 'hello',
    })
    expect(extractRow({ messages: [assistant] }, { kind: 'chat', column: 'messages' })).toEqual({
      prompt: '',
      completion: 'hello',
    })
    expect(
      extractRow({ context: 'c', input: 'i' }, { kind: 'combined', columns: ['context', 'input'] }),
    ).toEqual({ prompt: 'c\n\ni' })
  })
})

describe('hf files', () => {
  it('sanitizes names', () => {
    expect(sanitizeName('allenai/WildChat-4.8M')).toBe('allenai_WildChat-4.8M')
    expect(sanitizeName('org/sub/deep')).toBe('org_sub_deep')
  })

  it('matches split file names and folders', () => {
    for (const [path, split] of [
      ['data/train-00000-of-00042.parquet', 'train'],
      ['main/test-00000-of-00001.parquet', 'test'],
      ['test.parquet', 'test'],
      ['test.jsonl', 'test'],
      ['test_0.parquet', 'test'],
      ['data/test/0000.parquet', 'test'],
      ['test/0000.parquet', 'test'],
    ] as const)
      expect(pathMatchesSplit(path, split)).toBe(true)
    for (const path of [
      'data/train-0.parquet',
      'testing-00000.parquet',
      'contest/0000.parquet',
      'data/latest/0000.parquet',
    ])
      expect(pathMatchesSplit(path, 'test')).toBe(false)
  })

  it('selects native files by split and config', () => {
    const labelled = ['README.md', 'data/train-0.parquet', 'data/test-0.parquet']
    expect(selectNativeFiles(labelled, 'default', 'test')).toEqual(['data/test-0.parquet'])
    expect(selectNativeFiles(['codex_swebenchpro.json'], 'default', 'train')).toEqual([
      'codex_swebenchpro.json',
    ])
    expect(selectNativeFiles(['codex_swebenchpro.json'], 'default', 'test')).toEqual([])
    expect(selectNativeFiles(['test.jsonl'], 'default', 'train')).toEqual([])
    expect(selectNativeFiles(['main/train.jsonl', 'socratic/train.jsonl'], 'socratic', 'train')).toEqual([
      'socratic/train.jsonl',
    ])
  })

  it('reads JSON arrays, one-array objects and JSON Lines', () => {
    expect(readJsonRows('a.json', '[{"a":1},{"a":2},{"a":3}]', 2)).toHaveLength(2)
    expect(readJsonRows('a.json', '{"data":[{"a":1},{"a":2}]}')).toHaveLength(2)
    expect(readJsonRows('a.jsonl', '{"a":1}\n\n{"a":2}\n{"a":3}\n')).toHaveLength(3)
    expect(() => readJsonRows('a.json', '{"a":1,"b":2}')).toThrow(
      'hf: a.json: expected a JSON array of rows, an object with one array of rows, or JSON Lines',
    )
    expect(() => readJsonRows('a.jsonl', '{"a":1}\n{"a":\n')).toThrow(/^hf: a\.jsonl:2: not valid JSON/)
  })
})
