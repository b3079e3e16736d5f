import { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"

/** Writes `text` to `<target>.tmp`, fsyncs, renames over `target`; removes the staged file on failure. */
export const writeFileAtomic = (target: string, text: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(path.dirname(target), { recursive: true })
    const staged = `${target}.tmp`
    const write = Effect.scoped(
      Effect.gen(function* () {
        const file = yield* fs.open(staged, { flag: "w" })
        yield* file.writeAll(new TextEncoder().encode(text))
        yield* file.sync
      })
    )
    yield* write.pipe(
      Effect.zipRight(fs.rename(staged, target)),
      Effect.tapError(() => fs.remove(staged).pipe(Effect.ignore))
    )
  })
