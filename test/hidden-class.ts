/**
 * How many hidden classes (V8 maps) a set of objects has among them: objects built the same way
 * should share one, and code that reads them stays monomorphic. V8's `%HaveSameMap`, enabled for
 * this process when the module loads.
 */
import { setFlagsFromString } from 'node:v8'

setFlagsFromString('--allow-natives-syntax')
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean

export function hiddenClassCount(objects: readonly object[]): number {
  const classes: object[] = []
  for (const object of objects) {
    if (!classes.some((seen) => haveSameMap(seen, object))) classes.push(object)
  }
  return classes.length
}
