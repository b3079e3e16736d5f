// The read-only DuckDB worker (dist/pcli-duckdb-reader.cjs): a thread the bin starts for `audit --verify`
// before the command's bundle is evaluated, so that DuckDB's 70 MB native library is loaded and
// relocated on the other core meanwhile (decisions 35's witness read; performance.md "the witness read
// on a worker"). It holds at most one database, opened from the main thread's `open` (path and
// settings: READ_ONLY), and answers `query` with rows read straight from DuckDB's vectors through
// @duckdb/node-bindings: only the column types it can read exactly as @duckdb/node-api's
// JSDuckDBValueConverter does; any other fails the statement. No Effect here: it starts in ~1 ms.
import duckdb from "@duckdb/node-bindings"
import { parentPort } from "node:worker_threads"
import type { ReaderReply, ReaderRequest } from "./readOnlyProtocol"

// Loaded at once: the point of the worker.
const binding: typeof duckdb = duckdb
let db: duckdb.Database | undefined

const decoder = new TextDecoder()

/** The types read here, with DuckDB's name for them (the `type` node-api reports) and the JS value node-api converts to. */
const readers: Partial<Record<number, { readonly name: string; readonly width: number; readonly read: (view: DataView, at: number) => unknown }>> = {
  [duckdb.Type.BOOLEAN]: { name: "BOOLEAN", width: 1, read: (view, at) => view.getUint8(at) !== 0 },
  [duckdb.Type.INTEGER]: { name: "INTEGER", width: 4, read: (view, at) => view.getInt32(at, true) },
  [duckdb.Type.BIGINT]: { name: "BIGINT", width: 8, read: (view, at) => view.getBigInt64(at, true) },
  [duckdb.Type.DOUBLE]: { name: "DOUBLE", width: 8, read: (view, at) => view.getFloat64(at, true) },
  [duckdb.Type.VARCHAR]: {
    name: "VARCHAR",
    width: 16,
    read: (view, at) => {
      // DuckDB's string_t: the length, then up to 12 bytes inline, else a 4-byte prefix and a pointer.
      const length = view.getUint32(at, true)
      const bytes = length <= 12 ? new Uint8Array(view.buffer, view.byteOffset + at + 4, length) : binding.get_data_from_pointer(view.buffer as ArrayBuffer, view.byteOffset + at + 8, length)
      return decoder.decode(bytes)
    }
  }
}

const open = async (path: string, settings: Readonly<Record<string, string>>) => {
  const config = binding.create_config()
  // As @duckdb/node-api's createConfig: its API name first, then the caller's settings.
  binding.set_config(config, "duckdb_api", "node-neo-api")
  for (const [name, value] of Object.entries(settings)) binding.set_config(config, name, value)
  db = await binding.open(path, config)
}

const query = async (sql: string): Promise<ReaderReply & { ok: true }> => {
  if (db === undefined) throw new Error("the read-only worker has no database open")
  const connection = await binding.connect(db)
  try {
    const result = await binding.query(connection, sql)
    const count = binding.column_count(result)
    const columns = Array.from({ length: count }, (_, c) => {
      const type = binding.column_type(result, c)
      const reader = readers[type]
      if (reader === undefined) throw new Error(`the read-only worker does not read column ${binding.column_name(result, c)} (DuckDB type ${duckdb.Type[type] ?? type})`)
      return { name: binding.column_name(result, c), type: reader.name, reader }
    })
    const rows: Array<Array<unknown>> = []
    for (let i = 0, chunks = binding.result_chunk_count(result); i < chunks; i++) {
      const chunk = binding.result_get_chunk(result, i)
      const size = binding.data_chunk_get_size(chunk)
      const vectors = columns.map(({ reader }, c) => {
        const vector = binding.data_chunk_get_vector(chunk, c)
        const data = binding.vector_get_data(vector, size * reader.width)
        const validity = binding.vector_get_validity(vector, Math.ceil(size / 64) * 8)
        return { view: new DataView(data.buffer, data.byteOffset, data.byteLength), validity, reader }
      })
      for (let r = 0; r < size; r++) {
        rows.push(vectors.map(({ view, validity, reader }) => (validity && (validity[r >> 3]! & (1 << (r & 7))) === 0 ? null : reader.read(view, r * reader.width))))
      }
    }
    return { ok: true, columns: columns.map(({ name, type }) => ({ name, type })), rows }
  } finally {
    binding.disconnect_sync(connection)
  }
}

const answer = async (request: ReaderRequest): Promise<ReaderReply> => {
  switch (request.op) {
    case "open":
      await open(request.path, request.settings)
      return { ok: true }
    case "query":
      return await query(request.sql)
    case "close":
      if (db !== undefined) binding.close_sync(db)
      db = undefined
      return { ok: true }
  }
}

// Loaded: the main thread may now exit without waiting for this thread (readOnlyClient.ts).
parentPort?.postMessage({ ready: true })
parentPort?.on("message", (request: ReaderRequest) => {
  answer(request).then(
    (reply) => parentPort?.postMessage({ ...reply, id: request.id }),
    (error: unknown) => parentPort?.postMessage({ ok: false, id: request.id, message: error instanceof Error ? error.message : String(error) })
  )
})
