/**
 * A small PCM WAV encoder for the synthetic audio `openai-audio` sends: RIFF header, `fmt ` chunk
 * (PCM, 16-bit), `data` chunk, little-endian throughout.
 */

/** Sample rate of the synthetic audio (Whisper's input rate). */
export const SYNTH_SAMPLE_RATE_HZ = 16_000

const HEADER_BYTES = 44

/** Encodes mono or interleaved 16-bit samples as a WAV file. */
export function encodeWav(samples: Int16Array, sampleRateHz: number, channels = 1): Uint8Array {
  const dataBytes = samples.length * 2
  const out = Buffer.alloc(HEADER_BYTES + dataBytes)
  out.write('RIFF', 0, 'ascii')
  out.writeUInt32LE(HEADER_BYTES - 8 + dataBytes, 4)
  out.write('WAVE', 8, 'ascii')
  out.write('fmt ', 12, 'ascii')
  out.writeUInt32LE(16, 16) // fmt chunk size
  out.writeUInt16LE(1, 20) // PCM
  out.writeUInt16LE(channels, 22)
  out.writeUInt32LE(sampleRateHz, 24)
  out.writeUInt32LE(sampleRateHz * channels * 2, 28) // byte rate
  out.writeUInt16LE(channels * 2, 32) // block align
  out.writeUInt16LE(16, 34) // bits per sample
  out.write('data', 36, 'ascii')
  out.writeUInt32LE(dataBytes, 40)
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(samples[i]!, HEADER_BYTES + i * 2)
  return out
}

/**
 * `durationS` seconds of a quiet 440 Hz tone at {@link SYNTH_SAMPLE_RATE_HZ}, mono. The content does
 * not matter to a benchmark; the length does (servers cost audio by its duration).
 */
export function synthesizeWav(durationS: number): Uint8Array {
  const count = Math.max(1, Math.round(durationS * SYNTH_SAMPLE_RATE_HZ))
  const samples = new Int16Array(count)
  const step = (2 * Math.PI * 440) / SYNTH_SAMPLE_RATE_HZ
  for (let i = 0; i < count; i++) samples[i] = Math.round(Math.sin(i * step) * 3000)
  return encodeWav(samples, SYNTH_SAMPLE_RATE_HZ)
}

/** Seconds of audio in a 16-bit PCM WAV of `sampleCount` samples per channel. */
export function wavDurationS(sampleCount: number, sampleRateHz: number = SYNTH_SAMPLE_RATE_HZ): number {
  return sampleCount / sampleRateHz
}
