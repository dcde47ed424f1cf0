/**
 * `/metrics` as metric families (plain data, so an engine process can hand its own to the one
 * that answers), and the Prometheus text of several engines' families: each family's HELP and
 * TYPE once, then every engine's samples, as vLLM's one registry writes its data-parallel engines
 * (each sample labelled `engine="i"`; vLLM: vllm/v1/metrics/loggers.py, PrometheusStatLogger).
 */

/** One metric family of one engine: its samples are whole exposition lines. */
export interface MetricFamily {
  name: string
  type: 'counter' | 'gauge' | 'histogram'
  help: string
  samples: string[]
}

/**
 * The label set of an engine's samples, keys in sorted order as Python's prometheus_client writes
 * them: `engine="0",model_name="m"`.
 */
export function engineLabels(engine: number, model: string): { before: string; after: string } {
  return { before: `engine="${engine}"`, after: `model_name=${quoteLabel(model)}` }
}

/** Prometheus text format 0.0.4 of every engine's families, merged by name in first-seen order. */
export function renderFamilies(perEngine: ReadonlyArray<readonly MetricFamily[]>): string {
  const merged = new Map<string, MetricFamily>()
  for (const families of perEngine) {
    for (const family of families) {
      const seen = merged.get(family.name)
      if (seen) seen.samples.push(...family.samples)
      else merged.set(family.name, { ...family, samples: [...family.samples] })
    }
  }
  const out: string[] = []
  for (const { name, type, help, samples } of merged.values()) {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples)
  }
  return `${out.join('\n')}\n`
}

export function quoteLabel(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`
}
