import type { LoraConfig } from '../config/bench-config.ts'
import { createRng } from '../rng.ts'

/** LoRA draws get their own stream, apart from the dataset and schedule draws of the same seed. */
const LORA_SEED_OFFSET = 0x10ea

/**
 * The adapter of each of `count` requests (or conversations), in order: `round-robin` gives
 * `modules[i % n]`; `random` draws uniformly from an RNG seeded by `seed`, so a seed always gives
 * the same sequence. Python: the `--lora-modules` model field; Rust: `cli.rs`.
 */
export function assignLoraModules(lora: LoraConfig, count: number, seed: number): string[] {
  const { modules } = lora
  if (modules.length === 0)
    throw new Error('assignLoraModules needs at least one adapter. This is a bug in servebench.')
  if (lora.assignment === 'round-robin')
    return Array.from({ length: count }, (_, i) => modules[i % modules.length]!)
  const rng = createRng(seed + LORA_SEED_OFFSET)
  return Array.from({ length: count }, () => modules[rng.int(0, modules.length - 1)]!)
}
