/**
 * The share of one CPU this process gets while it spins for `spinMs`: about 1 on a quiet machine,
 * far less when other processes hold the cores (a loaded CI runner, other test runs, busy loops).
 */
export function cpuShare(spinMs = 100): number {
  const start = performance.now()
  const before = process.cpuUsage()
  while (performance.now() - start < spinMs) {
    // Spin: the CPU time this loop gets, against the wall time it takes, is the share.
  }
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1_000 / (performance.now() - start)
}

/** Below this share, a latency bound of a few ms measures the machine, not servebench. */
export const MIN_CPU_SHARE = 0.8

/**
 * Runs `measure` between two CPU-share probes. `busy` is set when either probe found the machine
 * busy: the test then checks what does not depend on time and skips its timing bounds with that
 * note (an inconclusive check, like servebench's own verdicts), rather than failing on a busy
 * machine or passing without checking.
 */
export async function onQuietMachine<T>(measure: () => Promise<T>): Promise<{ result: T; busy?: string }> {
  const before = cpuShare()
  const result = await measure()
  const share = Math.min(before, cpuShare())
  if (share >= MIN_CPU_SHARE) return { result }
  const percent = (share * 100).toFixed(0)
  return { result, busy: `machine busy (this process got ${percent}% of a CPU): timing bounds not judged` }
}
