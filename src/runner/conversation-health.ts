/**
 * The client self-check of a multi-turn run: its turns are sent from this thread, so the main
 * loop's figures are the run's. An open loop's conversations start on a schedule and their start
 * lag is the dispatch lag; in a closed loop every conversation is due at once, so there is no
 * schedule to be late against and the lateness rule has nothing to judge.
 */
import { availableParallelism } from 'node:os'
import type { LoadConfig } from '../config/bench-config.ts'
import type { RequestOutput } from '../config/records.ts'
import {
  type ClientHealthSummary,
  type LoopSamples,
  summarizeClientHealth,
} from '../metrics/client-health.ts'
import { latencyScales } from '../metrics/client-health-scale.ts'

/** Judges a multi-turn run from its loop figures, the conversations' start lags and its turns. */
export function conversationHealth(
  main: LoopSamples,
  startLagsMs: readonly number[],
  turns: ReadonlyArray<{ record: RequestOutput }>,
  load: Pick<LoadConfig, 'requestRate' | 'rampUp'>,
): ClientHealthSummary {
  const open = Number.isFinite(load.requestRate) || load.rampUp !== undefined
  const outputs = turns.map((t) => t.record)
  return summarizeClientHealth({
    main,
    dispatch: { loop: open ? 'open' : 'closed', latenessMs: open ? startLagsMs : [] },
    scales: latencyScales(outputs),
    succeeded: outputs.filter((o) => o.success).length,
    cpuCount: availableParallelism(),
  })
}
