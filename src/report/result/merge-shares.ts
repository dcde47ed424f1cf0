/**
 * How the shares of one run become one run: each share's records (a `--segment` process's, a
 * client thread's) moved onto the run's time line by that share's clock offset, then put back in
 * schedule order, as one process would have dispatched them. `servebench merge` and the client
 * threads' merge both go through here. Pure.
 */
import { withFields } from '../../with-fields.ts'

/** The absolute times of a record, which a clock offset moves (the rest are spans). */
export interface ShareTimes {
  startTimeS: number
  arrivalTimeS: number
  intendedTimeS?: number
}

/** One share's records and the seconds that put its clock on the run's. */
export interface RecordShare<R extends ShareTimes> {
  shiftS: number
  records: readonly R[]
}

/** A copy of `record` with its absolute times moved by `shiftS`. */
export function onRunTimeLine<R extends ShareTimes>(record: R, shiftS: number): R {
  const moved: R = withFields(record, {
    startTimeS: record.startTimeS + shiftS,
    arrivalTimeS: record.arrivalTimeS + shiftS,
  }) as R
  if (record.intendedTimeS !== undefined) moved.intendedTimeS = record.intendedTimeS + shiftS
  return moved
}

/** `records` sorted in place by their index in the schedule. */
export function inScheduleOrder<R>(records: R[], scheduleIndexOf: (record: R) => number): R[] {
  return records.sort((a, b) => scheduleIndexOf(a) - scheduleIndexOf(b))
}

/** Every share's records on the run's time line, in schedule order. */
export function mergeShares<R extends ShareTimes>(
  shares: ReadonlyArray<RecordShare<R>>,
  scheduleIndexOf: (record: R) => number,
): R[] {
  const records: R[] = []
  for (const { shiftS, records: own } of shares) for (const r of own) records.push(onRunTimeLine(r, shiftS))
  return inScheduleOrder(records, scheduleIndexOf)
}
