/** Blocks this thread for `blockMs` every `everyMs`, as CPU-bound work beside the client would; returns the undo. */
export function blockEventLoop(blockMs: number, everyMs: number): () => void {
  const timer = setInterval(() => {
    const until = performance.now() + blockMs
    while (performance.now() < until) {
      // busy
    }
  }, everyMs)
  return () => clearInterval(timer)
}
