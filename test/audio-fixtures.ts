/** Small WAV and FLAC files for the audio dataset tests, built byte by byte. */

/** A 16-bit PCM WAV of `frames` silent frames (per channel). */
export function wavFile(frames: number, sampleRateHz: number, channels = 1): Buffer {
  const dataBytes = frames * channels * 2
  const out = Buffer.alloc(44 + dataBytes)
  out.write('RIFF', 0, 'latin1')
  out.writeUInt32LE(36 + dataBytes, 4)
  out.write('WAVEfmt ', 8, 'latin1')
  out.writeUInt32LE(16, 16)
  out.writeUInt16LE(1, 20)
  out.writeUInt16LE(channels, 22)
  out.writeUInt32LE(sampleRateHz, 24)
  out.writeUInt32LE(sampleRateHz * channels * 2, 28)
  out.writeUInt16LE(channels * 2, 32)
  out.writeUInt16LE(16, 34)
  out.write('data', 36, 'latin1')
  out.writeUInt32LE(dataBytes, 40)
  return out
}

/**
 * A FLAC file: the `fLaC` marker, a STREAMINFO block (last metadata block) with the sample rate,
 * channels, 16 bits per sample and `totalSamples`, then a few bytes standing in for the frames.
 */
export function flacFile(sampleRateHz: number, totalSamples: number, channels = 1): Buffer {
  const info = Buffer.alloc(34)
  info.writeUInt16BE(4096, 0) // min block size
  info.writeUInt16BE(4096, 2) // max block size
  // bytes 10..17: 20 bits rate | 3 bits channels-1 | 5 bits bps-1 | 36 bits total samples
  const bitsPerSample = 16
  info[10] = (sampleRateHz >> 12) & 0xff
  info[11] = (sampleRateHz >> 4) & 0xff
  info[12] = ((sampleRateHz & 0x0f) << 4) | ((channels - 1) << 1) | ((bitsPerSample - 1) >> 4)
  info[13] = (((bitsPerSample - 1) & 0x0f) << 4) | Math.floor(totalSamples / 2 ** 32)
  info.writeUInt32BE(totalSamples % 2 ** 32, 14)
  const header = Buffer.from([0x80, 0, 0, 34]) // last block, type 0 (STREAMINFO), length 34
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), header, info, Buffer.from([0xff, 0xf8, 0x69, 0x08])])
}
