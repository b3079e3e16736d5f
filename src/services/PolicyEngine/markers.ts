import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Data, Effect } from "effect"
import { fileURLToPath } from "node:url"
import type { MarkerObject } from "./dynamic"

export class MarkerStoreUnreadable extends Data.TaggedError("MarkerStoreUnreadable")<{
  readonly location: string
  readonly detail: string
}> {
  readonly code = "freeze-markers-unreadable"
  override get message() {
    return `freeze markers at ${this.location} cannot be read: ${this.detail}`
  }
}

export class MarkerWriteFailed extends Data.TaggedError("MarkerWriteFailed")<{
  readonly location: string
  readonly detail: string
}> {
  readonly code = "freeze-marker-write-failed"
  override get message() {
    return `cannot write freeze marker to ${this.location}: ${this.detail}`
  }
}

/**
 * Durable freeze markers in the `[state]` object tier: `<prefix>/freeze/<id>.json` and
 * `<prefix>/unfreeze/<id>.json`. One implementation per URL scheme; `file://` ships here,
 * s3/gs/az plug in by implementing this interface over their SDK.
 */
export interface FreezeMarkerStore {
  readonly location: string
  readonly list: Effect.Effect<ReadonlyArray<MarkerObject>, MarkerStoreUnreadable>
  readonly write: (direction: "freeze" | "unfreeze", id: string, body: string) => Effect.Effect<void, MarkerWriteFailed>
}

const describe = (error: PlatformError): string => (error._tag === "SystemError" ? `${error.reason}: ${error.description ?? error.method}` : error.message)

/** Marker store over a local directory (`file:///abs/prefix/`). */
export const fileMarkerStore = (url: string): Effect.Effect<FreezeMarkerStore, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = fileURLToPath(url)
    const listDirection = (direction: "freeze" | "unfreeze") =>
      Effect.gen(function* () {
        const dir = path.join(root, direction)
        const names = yield* fs.readDirectory(dir).pipe(
          Effect.catchIf(
            (e) => e._tag === "SystemError" && e.reason === "NotFound",
            () => Effect.succeed<Array<string>>([])
          ),
          Effect.mapError((e) => new MarkerStoreUnreadable({ location: url, detail: describe(e) }))
        )
        const objects: Array<MarkerObject> = []
        for (const name of names.filter((n) => n.endsWith(".json")).sort()) {
          const body = yield* fs.readFileString(path.join(dir, name)).pipe(Effect.option)
          objects.push({ direction, id: name.slice(0, -".json".length), body: body._tag === "Some" ? body.value : undefined })
        }
        return objects
      })
    return {
      location: url,
      list: Effect.map(Effect.all([listDirection("freeze"), listDirection("unfreeze")]), ([a, b]) => [...a, ...b]),
      write: (direction, id, body) =>
        Effect.gen(function* () {
          const dir = path.join(root, direction)
          const target = path.join(dir, `${id}.json`)
          yield* fs.makeDirectory(dir, { recursive: true })
          yield* fs.writeFileString(`${target}.tmp`, body)
          yield* fs.rename(`${target}.tmp`, target)
        }).pipe(Effect.mapError((e) => new MarkerWriteFailed({ location: url, detail: describe(e) })))
    }
  })

/** A store for a scheme without an implementation yet: every read and write fails, naming the scheme. */
export const unsupportedMarkerStore = (url: string): FreezeMarkerStore => {
  const detail = `no freeze-marker implementation for ${url.split(":")[0]}:// yet`
  return {
    location: url,
    list: Effect.fail(new MarkerStoreUnreadable({ location: url, detail })),
    write: () => Effect.fail(new MarkerWriteFailed({ location: url, detail }))
  }
}

/** The marker store for a `[state]` object store URL. */
export const markerStoreForUrl = (url: string): Effect.Effect<FreezeMarkerStore, never, FileSystem.FileSystem | Path.Path> =>
  url.startsWith("file://") ? fileMarkerStore(url) : Effect.succeed(unsupportedMarkerStore(url))
