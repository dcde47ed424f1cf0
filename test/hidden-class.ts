/**
 * How many hidden classes (V8 maps) a set of objects has among them: objects built the same way
 * should share one, and code that reads them stays monomorphic. V8's `%HaveSameMap`, which needs
 * `--allow-natives-syntax`: only the `v8` project (`*.v8.test.ts`) starts its processes with it.
 *
 * Why a project of its own: V8 keeps one transition tree per root map for the whole isolate, and
 * a map that has run out of transitions (about 1,500) gives every new object a class of its own.
 * In a worker that other test files have warmed, that happens at random, so these counts are only
 * meaningful in a fresh process that has run nothing else.
 */
function sameMapFunction(): (a: object, b: object) => boolean {
  try {
    return new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean
  } catch (cause) {
    throw new Error('hiddenClassCount needs --allow-natives-syntax: name the test file <name>.v8.test.ts', {
      cause,
    })
  }
}

const haveSameMap = sameMapFunction()

export function hiddenClassCount(objects: readonly object[]): number {
  const classes: object[] = []
  for (const object of objects) {
    if (!classes.some((seen) => haveSameMap(seen, object))) classes.push(object)
  }
  return classes.length
}
