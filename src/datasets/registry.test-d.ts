import { describe, expectTypeOf, test } from 'vitest'
import type { BenchConfig } from '../config/bench-config.ts'
import {
  type BurstGptDatasetOptions,
  type CustomAudioDatasetOptions,
  type CustomDatasetOptions,
  type CustomImageDatasetOptions,
  type DatasetSpec,
  datasets,
  type HfDatasetOptions,
  type MultiTurnDatasetOptions,
  type PrefixRepetitionDatasetOptions,
  type RandomDatasetOptions,
  type RandomDatasetSpec,
  type RandomMmDatasetOptions,
  type RandomRerankDatasetOptions,
  type ServeBenchOptions,
  type ShareGptDatasetOptions,
  type SonnetDatasetOptions,
  type SpecBenchDatasetOptions,
  type SpeedBenchDatasetOptions,
  type TimedTraceDatasetOptions,
} from '../index.ts'
import type { DATASETS, DatasetConfig } from './registry.ts'

type Builders = typeof datasets

/** What each builder takes, as the package exports it: a registry entry without its export fails here. */
interface ExportedOptions {
  random: RandomDatasetOptions
  randomMm: RandomMmDatasetOptions
  randomRerank: RandomRerankDatasetOptions
  multiTurn: MultiTurnDatasetOptions
  custom: CustomDatasetOptions
  customAudio: CustomAudioDatasetOptions
  customImage: CustomImageDatasetOptions
  sonnet: SonnetDatasetOptions
  prefixRepetition: PrefixRepetitionDatasetOptions
  burstgpt: BurstGptDatasetOptions
  speedBench: SpeedBenchDatasetOptions
  specBench: SpecBenchDatasetOptions
  timedTrace: TimedTraceDatasetOptions
  sharegpt: ShareGptDatasetOptions
  hf: HfDatasetOptions
}

describe('the types the dataset registry derives', () => {
  test('every builder takes the options type its module declares, and the package exports each', () => {
    expectTypeOf<{
      -readonly [B in keyof Builders]-?: NonNullable<Parameters<Builders[B]>[0]>
    }>().toEqualTypeOf<ExportedOptions>()
  })

  test('a builder returns its options tagged with its kind, and serveBench takes any of them', () => {
    expectTypeOf(datasets.random({ inputLen: 8 })).toEqualTypeOf<RandomDatasetSpec>()
    expectTypeOf(datasets.custom({ path: 'p.jsonl' }).kind).toEqualTypeOf<'custom'>()
    expectTypeOf(datasets.multiTurn().kind).toEqualTypeOf<'multi-turn'>()
    expectTypeOf<ReturnType<Builders[keyof Builders]>>().toEqualTypeOf<DatasetSpec>()
    expectTypeOf<NonNullable<ServeBenchOptions['dataset']>>().toEqualTypeOf<DatasetSpec>()
    // A dataset that needs a file needs its options; the others may be called bare.
    // @ts-expect-error datasets.custom needs a path
    datasets.custom()
    datasets.sonnet()
  })

  test("BenchConfig's dataset is the union of the modules' configs, narrowed by kind", () => {
    expectTypeOf<BenchConfig['dataset']>().toEqualTypeOf<DatasetConfig>()
    expectTypeOf<Extract<DatasetConfig, { kind: 'timed_trace' }>['secMultiplier']>().toEqualTypeOf<number>()
    // multi-turn has no config of its own: --multi-turn runs over another dataset's.
    expectTypeOf<Extract<DatasetConfig, { kind: 'multi-turn' }>>().toBeNever()
    expectTypeOf<keyof typeof DATASETS>().toEqualTypeOf<keyof ExportedOptions>()
  })
})
