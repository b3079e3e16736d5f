import { FileSystem, Path } from "@effect/platform"
import { Data, Effect } from "effect"
import { fileURLToPath } from "node:url"
import { commitStaged } from "../../platform/atomicWrite"
import { blake3Hex } from "../../platform/blake3"
import type { DuckDbService } from "../Warehouse/embedded"

/** Writing or placing a Parquet artifact failed; no file appeared under its hash name. */
export class ArtifactWriteFailed extends Data.TaggedError("ArtifactWriteFailed")<{
  readonly model: string
  readonly path: string
  readonly detail: string
}> {
  readonly code = "artifact-write-failed"
  override get message() {
    return `model ${this.model}: cannot write artifact ${this.path}: ${this.detail}`
  }
}

export { blake3Hex }

/** Key-sorted, whitespace-free JSON: the canonical form recipes are hashed in. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
}

/** An object key whose place in `JSON.stringify`'s output is not its sorted place (integer-like keys go first), or that a copy cannot hold. */
class UnsortableKey extends Error {}

/** Key-sorted plain copy of a value as `canonicalJson` reads it: own enumerable keys, `undefined` properties dropped, no `toJSON`. */
const sortedCopy = (value: unknown): unknown => {
  if (value === null || typeof value !== "object") return typeof value === "function" || typeof value === "symbol" ? null : value
  if (Array.isArray(value)) {
    const out: Array<unknown> = new Array(value.length)
    for (let i = 0; i < value.length; i++) out[i] = value[i] === undefined ? null : sortedCopy(value[i])
    return out
  }
  const keys = Object.keys(value).sort()
  const out: Record<string, unknown> = {}
  for (const key of keys) {
    const first = key.charCodeAt(0)
    if ((first >= 48 && first <= 57) || key === "__proto__") throw new UnsortableKey()
    const v = (value as Record<string, unknown>)[key]
    if (v !== undefined) out[key] = sortedCopy(v)
  }
  return out
}

/**
 * `canonicalJson`, byte for byte, by one native `JSON.stringify` over a key-sorted copy: the
 * recursive string building cost most of a no-op run's fingerprints (property-tested against it
 * on values without array holes, which JSON and TOML never produce). Keys that start with a digit fall back to it.
 */
export const canonicalJsonFast = (value: unknown): string => {
  try {
    return JSON.stringify(sortedCopy(value)) ?? "null"
  } catch (e) {
    if (e instanceof UnsortableKey) return canonicalJson(value)
    throw e
  }
}

export const hashCanonical = (value: unknown): string => blake3Hex(new TextEncoder().encode(canonicalJson(value)))

/** Directory a `storage_prefix` names: `file:///abs/dir` or a directory relative to the project root. */
export const resolveStoragePrefix = (prefix: string, projectRoot: string, path: Path.Path): string =>
  prefix.startsWith("file://") ? fileURLToPath(prefix) : path.resolve(projectRoot, prefix)

/** Ledger `file_path`: the prefix as written, then `/<hash>.parquet`. */
export const artifactFilePath = (prefix: string, hash: string): string => `${prefix.replace(/\/+$/, "")}/${hash}.parquet`

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`

export interface WrittenArtifact {
  readonly hash: string
  readonly absolutePath: string
  readonly size: number
}

/**
 * Encodes a relation as deterministic Parquet (single thread, ORDER BY ALL), hashes the
 * bytes, and publishes the temp file as `<dir>/<hash>.parquet` through the shared atomic
 * writer (fsync, create-only link, directory fsync), so the file appears only when complete
 * and durable. Same bytes land at the same name; an existing file of that name is left alone.
 */
export const writeParquetArtifact = (input: {
  readonly duck: DuckDbService
  readonly model: string
  readonly relation: string
  readonly dir: string
  readonly tempName: string
}): Effect.Effect<WrittenArtifact, ArtifactWriteFailed, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const fail = (p: string) => (e: { message: string }) => new ArtifactWriteFailed({ model: input.model, path: p, detail: e.message })
    yield* fs.makeDirectory(input.dir, { recursive: true }).pipe(Effect.mapError(fail(input.dir)))
    const temp = path.join(input.dir, input.tempName)
    yield* input.duck
      .withConnection(async (connection) => {
        // threads is a database-wide setting: pin it for the COPY, then restore what was there.
        const before = (await connection.runAndReadAll("SELECT current_setting('threads')")).getRowsJS()[0]?.[0]
        await connection.run("SET threads = 1")
        try {
          await connection.run(
            `COPY (SELECT * FROM ${input.relation} ORDER BY ALL) TO ${sqlString(temp)} (FORMAT parquet, COMPRESSION zstd)`
          )
        } finally {
          await connection.run(`SET threads = ${Number(before ?? 1)}`)
        }
      })
      .pipe(Effect.mapError(fail(temp)))
    const bytes = yield* fs.readFile(temp).pipe(Effect.mapError(fail(temp)))
    const hash = blake3Hex(bytes)
    const absolutePath = path.join(input.dir, `${hash}.parquet`)
    // Create-only: same bytes land at the same name, so an existing file is kept and the temp dropped.
    yield* commitStaged(temp, absolutePath, "create").pipe(Effect.mapError(fail(absolutePath)))
    return { hash, absolutePath, size: bytes.length }
  }).pipe(
    Effect.tapError(() =>
      Effect.flatMap(Effect.all([FileSystem.FileSystem, Path.Path]), ([fs, path]) =>
        fs.remove(path.join(input.dir, input.tempName), { force: true }).pipe(Effect.ignore)
      )
    )
  )
