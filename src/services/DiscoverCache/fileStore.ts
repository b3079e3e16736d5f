import { FileSystem, Path } from "@effect/platform"
import { Effect, Option } from "effect"
import type { Envelope } from "../../schemas/discover"
import { writeFileAtomic } from "../../platform/atomicWrite"
import { type CacheStore, skipped, written } from "./CacheStore"
import { decodeEntry } from "./decode"
import { contentHash, serializeEnvelope } from "./dedupe"
import { CacheIoError } from "./errors"
import { type CacheKey, entryPath } from "./keys"

/** `<file_root>/<account_hash>/<destination_id>.json`, written staged-then-renamed with fsync. */
export const makeFileStore = (fileRoot: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const io = (e: { message: string }) => new CacheIoError({ backend: "file", detail: e.message })
    const locate = (key: CacheKey) => path.join(fileRoot, entryPath(key))

    const readText = (file: string): Effect.Effect<Option.Option<string>, CacheIoError> =>
      fs.readFileString(file).pipe(
        Effect.map(Option.some),
        Effect.catchIf(
          (e) => e._tag === "SystemError" && e.reason === "NotFound",
          () => Effect.succeed(Option.none<string>())
        ),
        Effect.mapError(io)
      )
    const readEntry = (file: string) =>
      readText(file).pipe(
        Effect.flatMap((text) =>
          Option.isNone(text) ? Effect.succeed(Option.none<Envelope>()) : Effect.asSome(decodeEntry("file", text.value))
        )
      )

    const store: CacheStore = {
      backend: "file",
      read: (key) =>
        readEntry(locate(key)),
      write: (key, envelope) =>
        Effect.gen(function* () {
          const file = locate(key)
          // An unreadable or corrupt prior entry is simply replaced.
          const prior = yield* readEntry(file).pipe(Effect.orElseSucceed(() => Option.none<Envelope>()))
          if (Option.isSome(prior) && contentHash(prior.value) === contentHash(envelope)) return skipped
          const text = serializeEnvelope(envelope)
          yield* writeFileAtomic(file, text).pipe(
            Effect.mapError(io),
            Effect.provideService(FileSystem.FileSystem, fs),
            Effect.provideService(Path.Path, path)
          )
          return written(Buffer.byteLength(text))
        })
    }
    return store
  })
