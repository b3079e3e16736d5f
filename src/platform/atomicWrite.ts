import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"

/**
 * The one durable file writer: bytes go to a staged sibling, the file is fsynced, then it
 * takes the target name (rename, or a hard link for create-only) and the directory is
 * fsynced so the new name survives a crash. A reader sees the old file or the whole new one.
 */

export type AtomicWriteRequirements = FileSystem.FileSystem | Path.Path

/** `replace` renames over any existing file; `create` never replaces one (the target's existence is the answer). */
export type CommitMode = "replace" | "create"

const toBytes = (data: string | Uint8Array): Uint8Array => (typeof data === "string" ? new TextEncoder().encode(data) : data)

/** A staged name next to `target`: hidden, unique per write, so concurrent writers never share one. */
export const stagedSibling = (target: string, path: Pick<Path.Path, "join" | "dirname" | "basename">): string =>
  path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`)

/** True for names `stagedSibling` produces (listings skip them). */
export const isStagedName = (name: string): boolean => /^\..+\.[0-9a-f]{12}\.tmp$/.test(name)

const fsyncPath = (fs: FileSystem.FileSystem, target: string) =>
  Effect.scoped(Effect.flatMap(fs.open(target, { flag: "r" }), (file) => file.sync))

/**
 * Publishes an already-written staged file under `target`: fsync it, rename (or link for
 * `create`), fsync the directory. The staged file is gone afterwards, whatever happened.
 * Returns false only in `create` mode when `target` already existed (it is left untouched).
 */
export const commitStaged = (
  staged: string,
  target: string,
  mode: CommitMode = "replace"
): Effect.Effect<boolean, PlatformError, AtomicWriteRequirements> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fsyncPath(fs, staged)
    const created =
      mode === "replace"
        ? yield* Effect.as(fs.rename(staged, target), true)
        : // link(2) fails with EEXIST instead of replacing: the create-only commit is atomic.
          yield* fs.link(staged, target).pipe(
            Effect.as(true),
            Effect.catchIf(
              (e) => e._tag === "SystemError" && e.reason === "AlreadyExists",
              () => Effect.succeed(false)
            ),
            Effect.zipLeft(fs.remove(staged))
          )
    if (created) yield* fsyncPath(fs, path.dirname(target))
    return created
  }).pipe(
    Effect.tapError(() => Effect.flatMap(FileSystem.FileSystem, (fs) => fs.remove(staged, { force: true }).pipe(Effect.ignore)))
  )

const writeStaged = (target: string, data: string | Uint8Array, mode: CommitMode) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(path.dirname(target), { recursive: true })
    const staged = stagedSibling(target, path)
    yield* Effect.scoped(
      Effect.gen(function* () {
        const file = yield* fs.open(staged, { flag: "wx" })
        yield* file.writeAll(toBytes(data))
      })
    ).pipe(Effect.tapError(() => fs.remove(staged, { force: true }).pipe(Effect.ignore)))
    return yield* commitStaged(staged, target, mode)
  })

/** Writes `data` to `target` atomically and durably, replacing any existing file. */
export const writeFileAtomic = (
  target: string,
  data: string | Uint8Array
): Effect.Effect<void, PlatformError, AtomicWriteRequirements> => Effect.asVoid(writeStaged(target, data, "replace"))

/** Creates `target` atomically and durably only if it does not exist; false (and nothing written) if it did. */
export const createFileExclusive = (
  target: string,
  data: string | Uint8Array
): Effect.Effect<boolean, PlatformError, AtomicWriteRequirements> => writeStaged(target, data, "create")
