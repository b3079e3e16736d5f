import { FileSystem, Path } from "@effect/platform"
import { Effect, Option } from "effect"
import { writeFileAtomic } from "./atomicWrite"
import { decodeEntry } from "./decode"
import { contentHash, md5Hex } from "./dedupe"
import { CacheObjectStoreError } from "./errors"
import type { ObjectClient } from "./ObjectClient"

/** `file:///abs/path/` as an object store: HEAD reads the file and derives its MD5 and content hash. */
export const makeLocalObjectClient = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const fail = (operation: "head" | "get" | "put") => (e: { message: string }) =>
      new CacheObjectStoreError({ backend: "object_store", operation, detail: e.message })
    const readText = (name: string, operation: "head" | "get") =>
      fs.readFileString(path.join(root, name)).pipe(
        Effect.map(Option.some),
        Effect.catchIf(
          (e) => e._tag === "SystemError" && e.reason === "NotFound",
          () => Effect.succeed(Option.none<string>())
        ),
        Effect.mapError(fail(operation))
      )
    const objectClient: ObjectClient = {
      head: (name) =>
        readText(name, "head").pipe(
          Effect.flatMap((text) =>
            Option.isNone(text)
              ? Effect.succeed(Option.none())
              : decodeEntry("object_store", text.value).pipe(
                  Effect.map((env) => contentHash(env)),
                  Effect.option,
                  Effect.map((hash) => Option.some({ md5Hex: md5Hex(text.value), contentHash: Option.getOrUndefined(hash) }))
                )
          )
        ),
      get: (name) => readText(name, "get"),
      put: (name, body) =>
        writeFileAtomic(path.join(root, name), body).pipe(
          Effect.mapError(fail("put")),
          Effect.provideService(FileSystem.FileSystem, fs),
          Effect.provideService(Path.Path, path)
        )
    }
    return objectClient
  })
