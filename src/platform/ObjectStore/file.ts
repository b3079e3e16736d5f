import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Option } from "effect"
import { createFileExclusive, isStagedName, writeFileAtomic } from "../atomicWrite"
import { failWith, md5Hex, type ObjectLocation, type ObjectOperation, type ProviderClient } from "./ObjectStore"

const detail = (e: PlatformError) => (e._tag === "SystemError" ? `${e.reason}: ${e.description ?? e.method}` : e.message)

/**
 * `file:///abs/dir/` as an object store: a key is a relative path under the directory;
 * writes go through the shared atomic writer. Files carry no metadata, so `head` states
 * the MD5 of the bytes and nothing else.
 */
export const makeFileProvider = (location: ObjectLocation, url: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = location.prefix
    const fail = (operation: ObjectOperation, key: string) => (e: PlatformError) => failWith(url)(operation, key)(detail(e))
    const notFound = (e: PlatformError) => e._tag === "SystemError" && e.reason === "NotFound"
    const read = (key: string, operation: "head" | "get") =>
      fs.readFile(path.join(root, key)).pipe(
        Effect.map(Option.some),
        Effect.catchIf(notFound, () => Effect.succeed(Option.none<Uint8Array>())),
        Effect.mapError(fail(operation, key))
      )
    const platform = <A, E>(effect: Effect.Effect<A, E, FileSystem.FileSystem | Path.Path>) =>
      effect.pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(Path.Path, path))

    const provider: ProviderClient = {
      head: (key) =>
        Effect.map(read(key, "head"), Option.map((bytes) => ({ md5Hex: md5Hex(bytes), size: bytes.byteLength, metadata: {} }))),
      get: (key) => read(key, "get"),
      put: (key, body, request) =>
        platform(
          request.ifAbsent ? createFileExclusive(path.join(root, key), body) : Effect.as(writeFileAtomic(path.join(root, key), body), true)
        ).pipe(Effect.mapError(fail("put", key))),
      list: (prefix) =>
        Effect.gen(function* () {
          // Walk the deepest directory the prefix names; the caller filters by the full prefix.
          const dirKey = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/") + 1) : ""
          const dir = path.join(root, dirKey)
          const entries = yield* fs.readDirectory(dir, { recursive: true }).pipe(
            Effect.catchIf(notFound, () => Effect.succeed<ReadonlyArray<string>>([]))
          )
          const keys: Array<string> = []
          for (const entry of entries) {
            if (isStagedName(path.basename(entry))) continue
            const info = yield* fs.stat(path.join(dir, entry)).pipe(Effect.option)
            if (Option.isSome(info) && info.value.type === "File") keys.push(`${dirKey}${entry.split(path.sep).join("/")}`)
          }
          return keys
        }).pipe(Effect.mapError(fail("list", prefix)))
    }
    return provider
  })
