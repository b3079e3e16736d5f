import { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"

/**
 * Writes `text` to a staged sibling unique to this call, fsyncs it, renames it over `target`,
 * then fsyncs the directory; removes the staged file on failure. Concurrent writers of one
 * target each rename a complete file: the last rename wins, nothing is ever half-written.
 */
export const writeFileAtomic = (target: string, text: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.dirname(target)
    yield* fs.makeDirectory(dir, { recursive: true })
    const staged = `${target}.${process.pid}-${randomUUID().slice(0, 8)}.tmp`
    const write = Effect.scoped(
      Effect.gen(function* () {
        const file = yield* fs.open(staged, { flag: "wx" })
        yield* file.writeAll(new TextEncoder().encode(text))
        yield* file.sync
      })
    )
    // The rename is durable only once the directory entry itself is synced.
    const syncDir = Effect.scoped(Effect.flatMap(fs.open(dir, { flag: "r" }), (d) => d.sync))
    yield* write.pipe(
      Effect.zipRight(fs.rename(staged, target)),
      Effect.tapError(() => fs.remove(staged).pipe(Effect.ignore)),
      Effect.zipRight(syncDir)
    )
  })
