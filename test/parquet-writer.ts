/**
 * A minimal parquet writer for test fixtures: one row group, required UTF-8 string columns,
 * PLAIN encoding, no compression, Thrift compact metadata. Enough for hyparquet to read back
 * what the datasets-server export of a flat text dataset looks like.
 */
export function writeParquet(rows: Array<Record<string, string>>): Buffer {
  const columns = Object.keys(rows[0] ?? {})
  const chunks: Buffer[] = [Buffer.from('PAR1')]
  let offset = 4
  const columnMeta: Buffer[] = []
  for (const name of columns) {
    const values = Buffer.concat(
      rows.map((row) => {
        const bytes = Buffer.from(row[name] ?? '', 'utf8')
        const length = Buffer.alloc(4)
        length.writeUInt32LE(bytes.length)
        return Buffer.concat([length, bytes])
      }),
    )
    const header = struct([
      [1, i32(0)], // DATA_PAGE
      [2, i32(values.length)],
      [3, i32(values.length)],
      [
        5,
        struct([
          [1, i32(rows.length)],
          [2, i32(0)],
          [3, i32(3)],
          [4, i32(3)],
        ]),
      ],
    ])
    const pageOffset = offset
    chunks.push(header, values)
    offset += header.length + values.length
    const size = header.length + values.length
    columnMeta.push(
      struct([
        [2, i64(pageOffset)],
        [
          3,
          struct([
            [1, i32(6)], // BYTE_ARRAY
            [2, list(5, [zigzag(0)])], // PLAIN
            [3, list(8, [binary(name)])],
            [4, i32(0)], // UNCOMPRESSED
            [5, i64(rows.length)],
            [6, i64(size)],
            [7, i64(size)],
            [9, i64(pageOffset)],
          ]),
        ],
      ]),
    )
  }
  const schema = [
    struct([
      [4, binary('schema')],
      [5, i32(columns.length)],
    ]),
    ...columns.map((name) =>
      struct([
        [1, i32(6)],
        [3, i32(0)], // REQUIRED
        [4, binary(name)],
        [6, i32(0)], // UTF8
      ]),
    ),
  ]
  const metadata = struct([
    [1, i32(1)],
    [2, list(12, schema)],
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
