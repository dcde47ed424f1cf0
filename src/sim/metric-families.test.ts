import { describe, expect, it } from 'vitest'
import { engineLabels, type MetricFamily, renderFamilies } from './metric-families.ts'

const running = (engine: number, value: number): MetricFamily => {
  const { before, after } = engineLabels(engine, 'org/m')
  return {
    name: 'vllm:num_requests_running',
    type: 'gauge',
    help: 'Number of requests in model execution batches.',
    samples: [`vllm:num_requests_running{${before},${after}} ${value}`],
  }
}

describe('renderFamilies', () => {
  it("writes each family once, with every engine's samples under it", () => {
    const success: MetricFamily = {
      name: 'vllm:request_success_total',
      type: 'counter',
      help: 'Count of successfully processed requests.',
      samples: ['vllm:request_success_total{engine="0",finished_reason="length",model_name="org/m"} 3'],
    }
    expect(renderFamilies([[running(0, 2), success], [running(1, 5)]])).toBe(
      [
        '# HELP vllm:num_requests_running Number of requests in model execution batches.',
        '# TYPE vllm:num_requests_running gauge',
        'vllm:num_requests_running{engine="0",model_name="org/m"} 2',
        'vllm:num_requests_running{engine="1",model_name="org/m"} 5',
        '# HELP vllm:request_success_total Count of successfully processed requests.',
        '# TYPE vllm:request_success_total counter',
        'vllm:request_success_total{engine="0",finished_reason="length",model_name="org/m"} 3',
        '',
      ].join('\n'),
    )
  })

  it('escapes the model name as Prometheus label values are escaped', () => {
    expect(engineLabels(3, 'a"b\\c')).toEqual({ before: 'engine="3"', after: 'model_name="a\\"b\\\\c"' })
  })
})
