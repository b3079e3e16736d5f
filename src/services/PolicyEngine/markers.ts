import type { FileSystem, Path } from "@effect/platform"
import { Data, Effect, Option, type Scope } from "effect"
import { firstLine, fromUrl, getText, type ObjectStore, type ObjectStoreError } from "../../platform/ObjectStore/ObjectStore"
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

type Direction = "freeze" | "unfreeze"

/**
 * Durable freeze markers in the `[state]` object tier: `<prefix>/freeze/<id>.json` and
 * `<prefix>/unfreeze/<id>.json`, one implementation over the shared ObjectStore for every
 * scheme (s3, gs, az, file). Markers are write-once records.
 */
export interface FreezeMarkerStore {
  readonly location: string
  readonly list: Effect.Effect<ReadonlyArray<MarkerObject>, MarkerStoreUnreadable>
  readonly write: (direction: Direction, id: string, body: string) => Effect.Effect<void, MarkerWriteFailed>
}

const detailOf = (e: ObjectStoreError) => `${e.operation}${e.key === undefined ? "" : ` ${e.key}`}: ${firstLine(e.detail)}`

/** Marker store over an object store. */
export const objectMarkerStore = (store: ObjectStore): FreezeMarkerStore => {
  const unreadable = (e: ObjectStoreError) => new MarkerStoreUnreadable({ location: store.location, detail: detailOf(e) })
  const listDirection = (direction: Direction) =>
    Effect.gen(function* () {
      const keys = yield* Effect.mapError(store.list(`${direction}/`), unreadable)
      const ids = keys.flatMap((key) => {
        const match = /^[a-z]+\/([^/]+)\.json$/.exec(key)
        return match === null ? [] : [match[1]!]
      })
      const objects = yield* Effect.forEach(
        ids,
        (id) =>
          getText(store, `${direction}/${id}.json`).pipe(
            // Gone since the listing: nothing to apply. Unreadable: undefined, so a freeze widens (fails closed).
            Effect.map(Option.map((body): MarkerObject => ({ direction, id, body }))),
            Effect.orElseSucceed(() => Option.some<MarkerObject>({ direction, id, body: undefined }))
          ),
        { concurrency: 8 }
      )
      return objects.flatMap(Option.toArray)
    })
  return {
    location: store.location,
    list: Effect.map(Effect.all([listDirection("freeze"), listDirection("unfreeze")]), ([a, b]) => [...a, ...b]),
    write: (direction, id, body) =>
      store.putIfAbsent(`${direction}/${id}.json`, body, { contentType: "application/json" }).pipe(
        Effect.mapError((e) => new MarkerWriteFailed({ location: store.location, detail: detailOf(e) })),
        Effect.flatMap((created) =>
          created ? Effect.void : Effect.fail(new MarkerWriteFailed({ location: store.location, detail: `${direction}/${id}.json already exists` }))
        )
      )
  }
}

/** A URL no store can be built from: every read and write fails with the reason. */
const invalidMarkerStore = (url: string, detail: string): FreezeMarkerStore => ({
  location: url,
  list: Effect.fail(new MarkerStoreUnreadable({ location: url, detail })),
  write: () => Effect.fail(new MarkerWriteFailed({ location: url, detail }))
})

/** The marker store for a `[state]` object store URL; it connects on first use and closes with the scope. */
export const markerStoreForUrl = (url: string): Effect.Effect<FreezeMarkerStore, never, Scope.Scope | FileSystem.FileSystem | Path.Path> =>
  fromUrl(url).pipe(
    Effect.map(objectMarkerStore),
    Effect.catchTag("ObjectStoreUrlInvalid", (e) => Effect.succeed(invalidMarkerStore(url, e.detail)))
  )
