import type { SimContext } from '../context.ts'
import type { MetricFamily } from '../metric-families.ts'

const VERSION = '0.0.0+servebench.sim'

/** `GET /v1/models`, in vLLM's `ModelList` shape. */
export function modelsResponse(ctx: SimContext, startedAtS: number): unknown {
  const { model, maxModelLen } = ctx.options
  return {
    object: 'list',
    data: [
      {
        id: model,
        object: 'model',
        created: startedAtS,
        owned_by: 'vllm',
        root: model,
        parent: null,
        max_model_len: maxModelLen,
        permission: [
          {
            id: `modelperm-${model.replace(/[^A-Za-z0-9]/g, '')}`,
            object: 'model_permission',
            created: startedAtS,
            allow_create_engine: false,
            allow_sampling: true,
            allow_logprobs: true,
            allow_search_indices: false,
            allow_view: true,
            allow_fine_tuning: false,
            organization: '*',
            group: null,
            is_blocking: false,
          },
        ],
      },
    ],
  }
}

/** `GET /version`. */
export function versionResponse(): unknown {
  return { version: VERSION }
}

/** This engine's `/metrics` families, labelled `engine="<engine>"`. */
export function metricFamilies(ctx: SimContext, engine: number): MetricFamily[] {
  return ctx.metrics.families(ctx.options.model, engine, {
    running: ctx.engine.runningCount(),
    waiting: ctx.engine.waitingCount(),
    lag: ctx.engine.lag(),
    cache: ctx.engine.cacheStats(),
  })
}
