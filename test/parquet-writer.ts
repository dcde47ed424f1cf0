/**
 * A minimal parquet writer for test fixtures: one row group, one PLAIN data page (v1) per leaf
 * column, no compression, Thrift compact metadata. Enough for hyparquet to read back what the
 * datasets-server export of a dataset looks like.
 *
 * Without a schema every column is a required UTF-8 string (a flat text dataset). With one, every
 * field is optional as in an Arrow/HF export: strings, binary, doubles, structs (an HF `Image` is
 * `{ struct: { bytes: 'binary', path: 'string' } }`) and 3-level lists, nested to any depth, written
 * with Dremel repetition and definition levels.
 */
export type ParquetType =
  | 'string'
  | 'binary'
  | 'double'
  | { struct: Record<string, ParquetType> }
  | { list: ParquetType }

/** An HF `datasets.Image()` column: `{bytes, path}`. */
export const IMAGE_TYPE: ParquetType = { struct: { bytes: 'binary', path: 'string' } }

export function writeParquet(
  rows: Array<Record<string, unknown>>,
  schema?: Record<string, ParquetType>,
): Buffer {
  const fields = schema
    ? Object.entries(schema).map(([name, type]) => buildNode(name, type, false))
    : Object.keys(rows[0] ?? {}).map((name) => buildNode(name, 'string', true))
  const root: Node = { name: 'schema', kind: 'struct', required: true, children: fields }
  const leaves = collectLeaves(root, [], 0, 0)
  for (const row of rows) for (const field of fields) shred(field, row[field.name], 0, 0, leaves)

  const chunks: Buffer[] = [Buffer.from('PAR1')]
  let offset = 4
  const columnMeta: Buffer[] = []
  for (const leaf of leaves.values()) {
    const body = Buffer.concat([
      ...(leaf.maxRep > 0 ? [levels(leaf.rep, leaf.maxRep)] : []),
      ...(leaf.maxDef > 0 ? [levels(leaf.def, leaf.maxDef)] : []),
      ...leaf.values.map((value) => plain(leaf.node.primitive!, value)),
    ])
    const header = struct([
      [1, i32(0)], // DATA_PAGE
      [2, i32(body.length)],
      [3, i32(body.length)],
      [
        5,
        struct([
          [1, i32(leaf.rep.length)],
          [2, i32(0)], // PLAIN
          [3, i32(3)], // RLE definition levels
          [4, i32(3)], // RLE repetition levels
        ]),
      ],
    ])
    const pageOffset = offset
    chunks.push(header, body)
    const size = header.length + body.length
    offset += size
    columnMeta.push(
      struct([
        [2, i64(pageOffset)],
        [
          3,
          struct([
            [1, i32(PHYSICAL[leaf.node.primitive!])],
            [2, list(5, [zigzag(0), zigzag(3)])], // PLAIN, RLE
            [3, list(8, leaf.path.map(binary))],
            [4, i32(0)], // UNCOMPRESSED
            [5, i64(leaf.rep.length)],
            [6, i64(size)],
            [7, i64(size)],
            [9, i64(pageOffset)],
          ]),
        ],
      ]),
    )
  }
  const metadata = struct([
    [1, i32(1)],
    [2, list(12, flattenSchema(root))],
    [3, i64(rows.length)],
    [
      4,
      list(12, [
        struct([
          [1, list(12, columnMeta)],
          [2, i64(offset - 4)],
          [3, i64(rows.length)],
        ]),
      ]),
    ],
  ])
  const footer = Buffer.alloc(4)
  footer.writeUInt32LE(metadata.length)
  chunks.push(metadata, footer, Buffer.from('PAR1'))
  return Buffer.concat(chunks)
}

type Primitive = 'string' | 'binary' | 'double'
const PHYSICAL: Record<Primitive, number> = { string: 6, binary: 6, double: 5 } // BYTE_ARRAY, DOUBLE

/** A schema node. A list is `optional group (LIST) { repeated group list { optional element } }`. */
interface Node {
  name: string
  kind: 'leaf' | 'struct' | 'list' | 'repeated'
  required: boolean
  primitive?: Primitive
  children: Node[]
}

function buildNode(name: string, type: ParquetType, required: boolean): Node {
  if (typeof type === 'string') return { name, kind: 'leaf', required, primitive: type, children: [] }
  if ('struct' in type) {
    const children = Object.entries(type.struct).map(([child, t]) => buildNode(child, t, false))
    return { name, kind: 'struct', required, children }
  }
  const element = buildNode('element', type.list, false)
  const repeated: Node = { name: 'list', kind: 'repeated', required: false, children: [element] }
  return { name, kind: 'list', required, children: [repeated] }
}

interface Leaf {
  node: Node
  path: string[]
  maxRep: number
  maxDef: number
  rep: number[]
  def: number[]
  values: unknown[]
}

function collectLeaves(node: Node, path: string[], rep: number, def: number, out = new Map<Node, Leaf>()) {
  for (const child of node.children) {
    const childRep = rep + (child.kind === 'repeated' ? 1 : 0)
    const childDef = def + (child.required ? 0 : 1)
    const childPath = [...path, child.name]
    if (child.kind === 'leaf') {
      out.set(child, {
        node: child,
        path: childPath,
        maxRep: childRep,
        maxDef: childDef,
        rep: [],
        def: [],
        values: [],
      })
    } else collectLeaves(child, childPath, childRep, childDef, out)
  }
  return out
}

/** Dremel shredding of one value under `node`, reached at repetition level `rep` and definition level `def`. */
function shred(node: Node, value: unknown, rep: number, def: number, leaves: Map<Node, Leaf>): void {
  if (value === undefined || value === null) {
    if (node.required) throw new Error(`parquet-writer: required column ${node.name} has no value`)
    emitEmpty(node, rep, def, leaves)
    return
  }
  const d = def + (node.required ? 0 : 1)
  if (node.kind === 'leaf') {
    const leaf = leaves.get(node)!
    leaf.rep.push(rep)
    leaf.def.push(d)
    leaf.values.push(value)
    return
  }
  if (node.kind === 'struct') {
    for (const child of node.children)
      shred(child, (value as Record<string, unknown>)[child.name], rep, d, leaves)
    return
  }
  // A list: the repeated group adds a definition level per present item and a repetition level.
  const items = value as unknown[]
  const repeated = node.children[0]!
  if (items.length === 0) {
    emitEmpty(repeated, rep, d, leaves)
    return
  }
  const listRep = repetitionDepth(repeated, leaves)
  items.forEach((item, i) => {
    shred(repeated.children[0]!, item, i === 0 ? rep : listRep, d + 1, leaves)
  })
}

function emitEmpty(node: Node, rep: number, def: number, leaves: Map<Node, Leaf>): void {
  if (node.kind === 'leaf') {
    const leaf = leaves.get(node)!
    leaf.rep.push(rep)
    leaf.def.push(def)
    return
  }
  for (const child of node.children) emitEmpty(child, rep, def, leaves)
}

// The repetition level of a repeated group: its leaves' max level minus the repeated groups below it.
function repetitionDepth(repeated: Node, leaves: Map<Node, Leaf>): number {
  let below = 0
  let node = repeated.children[0]!
  while (node.kind !== 'leaf') {
    if (node.kind === 'repeated') below++
    node = node.children[0]!
  }
  return leaves.get(node)!.maxRep - below
}

function flattenSchema(node: Node, out: Buffer[] = []): Buffer[] {
  const repetition = node.kind === 'repeated' ? 2 : node.required ? 0 : 1
  if (out.length === 0) {
    out.push(
      struct([
        [4, binary(node.name)],
        [5, i32(node.children.length)],
      ]),
    )
  } else if (node.kind === 'leaf') {
    out.push(
      struct([
        [1, i32(PHYSICAL[node.primitive!])],
        [3, i32(repetition)],
        [4, binary(node.name)],
        ...(node.primitive === 'string' ? ([[6, i32(0)]] as Array<[number, Value]>) : []), // UTF8
      ]),
    )
    return out
  } else {
    out.push(
      struct([
        [3, i32(repetition)],
        [4, binary(node.name)],
        [5, i32(node.children.length)],
        ...(node.kind === 'list' ? ([[6, i32(3)]] as Array<[number, Value]>) : []), // LIST
      ]),
    )
  }
  for (const child of node.children) flattenSchema(child, out)
  return out
}

/** Levels as the RLE/bit-packed hybrid: one RLE run per stretch of equal values, length-prefixed. */
function levels(values: number[], max: number): Buffer {
  const width = Math.ceil(Math.log2(max + 1))
  const bytesPerValue = Math.ceil(width / 8)
  const runs: Buffer[] = []
  for (let i = 0; i < values.length; ) {
    let j = i
    while (j < values.length && values[j] === values[i]) j++
    const value = Buffer.alloc(bytesPerValue)
    value.writeUIntLE(values[i]!, 0, bytesPerValue)
    runs.push(varint(BigInt((j - i) << 1)), value)
    i = j
  }
  const body = Buffer.concat(runs)
  const length = Buffer.alloc(4)
  length.writeUInt32LE(body.length)
  return Buffer.concat([length, body])
}

function plain(type: Primitive, value: unknown): Buffer {
  if (type === 'double') {
    const out = Buffer.alloc(8)
    out.writeDoubleLE(value as number)
    return out
  }
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value as Uint8Array)
  const length = Buffer.alloc(4)
  length.writeUInt32LE(bytes.length)
  return Buffer.concat([length, bytes])
}

// Thrift compact protocol: each value carries its type id for the field header.
interface Value {
  type: number
  bytes: Buffer
}

function varint(n: bigint): Buffer {
  const out: number[] = []
  let v = n
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return Buffer.from(out)
}

function zigzag(n: number): Buffer {
  const v = BigInt(n)
  return varint(v >= 0n ? v << 1n : (-v << 1n) - 1n)
}

const i32 = (n: number): Value => ({ type: 5, bytes: zigzag(n) })
const i64 = (n: number): Value => ({ type: 6, bytes: zigzag(n) })
const binary = (s: string): Buffer => {
  const bytes = Buffer.from(s, 'utf8')
  return Buffer.concat([varint(BigInt(bytes.length)), bytes])
}

function list(elementType: number, items: Buffer[] | Value[]): Value {
  const raw = items.map((item) => (Buffer.isBuffer(item) ? item : item.bytes))
  const head =
    raw.length < 15
      ? Buffer.from([(raw.length << 4) | elementType])
      : Buffer.concat([Buffer.from([0xf0 | elementType]), varint(BigInt(raw.length))])
  return { type: 9, bytes: Buffer.concat([head, ...raw]) }
}

function struct(fields: Array<[number, Value | Buffer]>): Buffer & Value {
  const parts: Buffer[] = []
  let last = 0
  for (const [id, raw] of fields) {
    const value = Buffer.isBuffer(raw) && !('type' in raw) ? { type: 8, bytes: raw } : (raw as Value)
    parts.push(Buffer.from([((id - last) << 4) | value.type]), value.bytes)
    last = id
  }
  parts.push(Buffer.from([0]))
  const bytes = Buffer.concat(parts)
  return Object.assign(bytes, { type: 12, bytes })
}
