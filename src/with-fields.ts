/**
 * `{ ...base, ...fields }`, for objects made once per request or per record. Node 20's V8 gives
 * an object spread followed by properties of its own (`{ ...base, extra }`) a new hidden class
 * every time: each such object carries its own map and descriptors (about 1 KB), and every
 * property read of it in shared code misses its inline cache. `Object.assign` onto a fresh object
 * walks the shared transition tree, so the copies share one class.
 */
export function withFields<T extends object, U extends object>(base: T, fields: U): Omit<T, keyof U> & U {
  return Object.assign({}, base, fields)
}
