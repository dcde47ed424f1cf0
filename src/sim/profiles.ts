// Named timing profiles for the batching engine. The figures are first-order estimates from public
// numbers (GPU datasheets, model configs), not measurements: a decode step reads every weight once
// (bytes / HBM bandwidth, plus launch overhead), prefill costs 2 × parameters FLOPs per token at
// roughly half of peak, and the KV cache gets what is left of 90 % of GPU memory after the weights,
// at 2 × layers × KV heads × head dim × 2 bytes per token. They are approximate (docs/simulator.md).

import type { ConfigIssue } from '../errors.ts'
import type { ResolvedSimOptions, SimOptions } from './options.ts'

/** The engine figures a profile sets; explicit options override each of them. */
export interface SimProfile {
  /** Fixed cost of one engine step. */
  decodeBaseMs: number
  /** Added step cost per sequence in the batch. */
  decodeMsPerSeq: number
  /** Added step cost per prefilled prompt token. */
  prefillMsPerToken: number
  /** KV-cache blocks of 16 tokens. */
  numGpuBlocks: number
  /** Where the figures come from, in one line. */
  source: string
}

/** The profiles `--profile-name` accepts. */
export type SimProfileName = 'llama-3.1-8b-h100' | 'llama-3.1-70b-h100-tp4' | 'qwen3-0.6b-l4'

/** Every profile, by name. */
export const SIM_PROFILES: Readonly<Record<SimProfileName, SimProfile>> = {
  'llama-3.1-8b-h100': {
    // 16 GB of bf16 weights / 3.35 TB/s ≈ 4.8 ms; 16 GFLOP/token at ~50 % of 989 TFLOPS ≈ 0.03 ms;
    // 128 KiB of KV per token (32 layers × 8 KV heads × 128) in ~56 GB ≈ 427k tokens.
    decodeBaseMs: 6.5,
    decodeMsPerSeq: 0.03,
    prefillMsPerToken: 0.035,
    numGpuBlocks: 26_000,
    source: 'H100 SXM datasheet (3.35 TB/s HBM3, 989 TFLOPS bf16) and Llama 3.1 8B config.json',
  },
  'llama-3.1-70b-h100-tp4': {
    // 35 GB of weights per GPU / 3.35 TB/s ≈ 10.5 ms plus all-reduce; 140 GFLOP/token over 4 GPUs;
    // 80 KiB of KV per token per GPU (80 layers × 2 of 8 KV heads × 128) in ~30 GB ≈ 380k tokens.
    decodeBaseMs: 14,
    decodeMsPerSeq: 0.06,
    prefillMsPerToken: 0.075,
    numGpuBlocks: 23_000,
    source: 'H100 SXM datasheet, tensor parallel 4, and Llama 3.1 70B config.json',
  },
  'qwen3-0.6b-l4': {
    // 1.5 GB of weights / 300 GB/s ≈ 5 ms; 1.5 GFLOP/token at ~40 % of 121 TFLOPS ≈ 0.03 ms;
    // 112 KiB of KV per token (28 layers × 8 KV heads × 128) in ~19 GB ≈ 165k tokens.
    decodeBaseMs: 6,
    decodeMsPerSeq: 0.02,
    prefillMsPerToken: 0.03,
    numGpuBlocks: 10_000,
    source: 'L4 datasheet (300 GB/s GDDR6, 121 TFLOPS bf16) and Qwen3-0.6B config.json',
  },
}

/** Profile names in the order error messages list them. */
export const SIM_PROFILE_NAMES = Object.keys(SIM_PROFILES) as SimProfileName[]

/** Whether `name` is a known profile. */
export function isSimProfileName(name: string): name is SimProfileName {
  return Object.hasOwn(SIM_PROFILES, name)
}

/** The step costs and KV-cache shape {@link resolveEngineShape} resolves from the options, a profile and the defaults. */
type EngineShapeKey =
  | 'decodeBaseMs'
  | 'decodeMsPerSeq'
  | 'prefillMsPerToken'
  | 'numGpuBlocks'
  | 'blockSize'
  | 'enablePrefixCaching'

/**
 * Resolves the step costs and KV-cache shape: explicit options, else the profile's, else the defaults. A
 * profile's blocks are 16 tokens; another block size keeps its token capacity. The cache must hold
 * one maxModelLen sequence, which vLLM also checks at startup.
 */
export function resolveEngineShape(
  options: SimOptions,
  defaults: Pick<ResolvedSimOptions, EngineShapeKey | 'maxModelLen'>,
  issues: ConfigIssue[],
): Pick<ResolvedSimOptions, EngineShapeKey | 'profileName'> {
  const name = options.profileName
  if (name !== undefined && !isSimProfileName(name)) {
    issues.push({
      path: 'profileName',
      message: `must be one of ${SIM_PROFILE_NAMES.join(', ')} (got '${String(name)}')`,
    })
  }
  const profile = name !== undefined && isSimProfileName(name) ? SIM_PROFILES[name] : undefined
  const blockSize = options.blockSize ?? defaults.blockSize
  const numGpuBlocks =
    options.numGpuBlocks ??
    (profile ? Math.max(1, Math.floor((profile.numGpuBlocks * 16) / blockSize)) : defaults.numGpuBlocks)
  const maxModelLen = options.maxModelLen ?? defaults.maxModelLen
  const valid = [numGpuBlocks, blockSize, maxModelLen].every((v) => Number.isInteger(v) && v >= 1)
  if (valid && numGpuBlocks * blockSize < maxModelLen) {
    issues.push({
      path: 'numGpuBlocks',
      message: `holds ${numGpuBlocks * blockSize} tokens (numGpuBlocks × blockSize), fewer than maxModelLen (${maxModelLen}); raise numGpuBlocks or lower maxModelLen`,
    })
  }
  return {
    decodeBaseMs: options.decodeBaseMs ?? profile?.decodeBaseMs ?? defaults.decodeBaseMs,
    decodeMsPerSeq: options.decodeMsPerSeq ?? profile?.decodeMsPerSeq ?? defaults.decodeMsPerSeq,
    prefillMsPerToken: options.prefillMsPerToken ?? profile?.prefillMsPerToken ?? defaults.prefillMsPerToken,
    numGpuBlocks,
    blockSize,
    enablePrefixCaching: options.enablePrefixCaching ?? defaults.enablePrefixCaching,
    profileName: profile ? name : undefined,
  }
}
