import { FileSystem, Path } from "@effect/platform"
import { blake3 } from "@noble/hashes/blake3.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import { Data, Effect } from "effect"
import { fileURLToPath } from "node:url"
import { commitStaged } from "../../platform/atomicWrite"
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

export const blake3Hex = (bytes: Uint8Array): string => bytesToHex(blake3(bytes))

/** Key-sorted, whitespace-free JSON: the canonical form recipes are hashed in. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
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
