import { describe, expect, it } from 'vitest'
import { LLAMA3_JSON, QWEN3_JSON, sharedTokenizer } from '../../test/tokenizers.ts'
import { TokenizerError } from '../errors.ts'
import { applyChatTemplate, readChatTemplateConfig } from './chat-template.ts'

const USER = [{ role: 'user', content: 'Hello there' }]

describe('chat templates through @huggingface/jinja', { timeout: 20_000 }, () => {
  it('renders the llama3 template of tokenizer_config.json', async () => {
    const tokenizer = await sharedTokenizer(LLAMA3_JSON)
    expect(tokenizer.specialTokensMap).toMatchObject({
      bos_token: '<|begin_of_text|>',
      eos_token: '<|end_of_text|>',
    })
    const prompt = applyChatTemplate(tokenizer, USER)
    expect(prompt).toBe(
      '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello there<|eot_id|>' +
        '<|start_header_id|>assistant<|end_header_id|>\n\n',
    )
    // The template's special tokens are single ids under the tokenizer.
    const ids = await tokenizer.encode(prompt)
    expect(ids[0]).toBe(128_000)
    expect(ids).toContain(128_009)
  })

  it('renders the qwen3 template, and passes chat-template kwargs to it', async () => {
    const tokenizer = await sharedTokenizer(QWEN3_JSON)
    expect(applyChatTemplate(tokenizer, USER)).toBe(
      '<|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n',
    )
    expect(applyChatTemplate(tokenizer, USER, { enable_thinking: false })).toBe(
      '<|im_start|>user\nHello there<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
    )
    expect(applyChatTemplate(tokenizer, USER, { addGenerationPrompt: false })).toBe(
      '<|im_start|>user\nHello there<|im_end|>\n',
    )
    expect(await tokenizer.encode('<|im_start|>user\n')).toEqual([151_644, 872, 198])
  })

  it('names the tokenizer when it has no template', () => {
    expect(() => applyChatTemplate({ id: 'cl100k_base' }, USER)).toThrow(
      new TokenizerError(
        'The tokenizer "cl100k_base" has no chat template (no chat_template.jinja, and no chat_template in its tokenizer_config.json)',
      ),
    )
  })

  it('reports a template that cannot be parsed, and one that raises', () => {
    expect(() => applyChatTemplate({ id: 'broken', chatTemplate: '{% if %}' }, USER)).toThrow(
      /^The chat template of "broken" cannot be parsed: /,
    )
    const raising = { id: 'strict', chatTemplate: "{{ raise_exception('Only system and user roles') }}" }
    expect(() => applyChatTemplate(raising, USER)).toThrow(
      new TokenizerError('The chat template of "strict" cannot be rendered: Only system and user roles'),
    )
  })

  it('reads a template list (the default entry) and AddedToken objects', () => {
    const config = readChatTemplateConfig({
      chat_template: [
        { name: 'tool_use', template: 'T' },
        { name: 'default', template: '{{ bos_token }}{{ messages[0].content }}' },
      ],
      bos_token: { content: '<s>', lstrip: false },
      eos_token: '</s>',
      pad_token: null,
    })
    expect(config).toEqual({
      template: '{{ bos_token }}{{ messages[0].content }}',
      specialTokensMap: { bos_token: '<s>', eos_token: '</s>' },
    })
    const tokenizer = { id: 'x', chatTemplate: config.template, specialTokensMap: config.specialTokensMap }
    expect(applyChatTemplate(tokenizer, USER)).toBe('<s>Hello there')
    expect(readChatTemplateConfig({})).toEqual({ specialTokensMap: {} })
  })

  it('lets the chat_template.jinja text win over the config, a template list and an empty file included', () => {
    const list = [{ name: 'default', template: 'D' }]
    expect(readChatTemplateConfig({ chat_template: 'C', eos_token: '</s>' }, 'F')).toEqual({
      template: 'F',
      specialTokensMap: { eos_token: '</s>' },
    })
    expect(readChatTemplateConfig({ chat_template: list }, 'F').template).toBe('F')
    expect(readChatTemplateConfig({ chat_template: 'C' }, '').template).toBe('')
    expect(readChatTemplateConfig({}, 'F').template).toBe('F')
  })

  it('gives templates strftime_now', () => {
    const tokenizer = { id: 'dated', chatTemplate: "{{ strftime_now('%Y-%m-%d') }}" }
    expect(applyChatTemplate(tokenizer, USER)).toMatch(/^\d{4}-\d{2}-\d{2}$/)
  })
})
