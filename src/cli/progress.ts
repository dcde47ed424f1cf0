/** A progress bar on a terminal (redrawn in place), or a plain line every 10 % otherwise. */
export interface Progress {
  update(done: number, total: number): void
  finish(): void
}

export function createProgress(stream: NodeJS.WriteStream, enabled: boolean): Progress {
  if (!enabled) return { update() {}, finish() {} }
  const startMs = performance.now()
  let lastDecile = -1
  let lastDrawMs = 0
  let drawn = false
  return {
    update(done, total) {
      const fraction = total > 0 ? done / total : 1
      if (stream.isTTY) {
        const nowMs = performance.now()
        if (done < total && nowMs - lastDrawMs < 100) return
        lastDrawMs = nowMs
        const width = 30
        const filled = Math.round(fraction * width)
        const elapsedS = (nowMs - startMs) / 1000
        const rate = elapsedS > 0 ? done / elapsedS : 0
        stream.write(
          `\r${String(Math.round(fraction * 100)).padStart(3)}%|${'█'.repeat(filled)}${' '.repeat(width - filled)}| ${done}/${total} [${elapsedS.toFixed(1)}s, ${rate.toFixed(2)} req/s]`,
        )
        drawn = true
        return
      }
      const decile = Math.floor(fraction * 10)
      if (decile !== lastDecile) {
        lastDecile = decile
        stream.write(`progress: ${done}/${total} requests (${Math.round(fraction * 100)}%)\n`)
      }
    },
    finish() {
      if (drawn) stream.write('\n')
    },
  }
}
