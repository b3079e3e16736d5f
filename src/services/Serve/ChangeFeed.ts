// Tells `pcli serve`'s event stream when the state store, pcli.toml or the models changed: file-system
// notifications on their folders, gathered into at most one change per throttle window.
import { Context, Deferred, Effect, Layer, PubSub, Stream } from "effect"
import { type FSWatcher, watch } from "node:fs"
import { basename } from "node:path"

export interface ChangeFeedService {
  /** One element per change burst after subscribing; ends when the feed is closed. */
  readonly changes: Stream.Stream<void>
  /** Ends every subscriber's stream: run before the HTTP server closes, which waits for open responses. */
  readonly close: Effect.Effect<void>
  /** Moves on every notification, at once (no throttle): a value computed at one generation holds while it stays. */
  readonly generation: () => number
  /** Values kept per route while the generation stays (never with a folder that could not be watched). */
  readonly kept: Map<string, { readonly generation: number; readonly value: unknown }>
  readonly watching: boolean
}

export class ChangeFeed extends Context.Tag("pcli/ChangeFeed")<ChangeFeed, ChangeFeedService>() {}

export interface Watched {
  /** Folders watched with their subfolders (the models). */
  readonly trees: ReadonlyArray<string>
  /** Folders watched alone (the store's, pcli.toml's). */
  readonly folders: ReadonlyArray<string>
}

/** SQLite's shared-memory index moves on reads too (this server's own): a read is not a change. */
const isReadNoise = (file: string | null) => file !== null && (basename(file).endsWith("-shm") || basename(file).endsWith("-journal"))

/** A folder that cannot be watched (gone, no permission) is left out: the feed then misses its changes, never fails the server. */
const tryWatch = (dir: string, recursive: boolean, onChange: (file: string | null) => void): FSWatcher | undefined => {
  try {
    const w = watch(dir, { recursive, persistent: false }, (_event, file) => onChange(file === null ? null : String(file)))
    w.on("error", () => w.close())
    return w
  } catch {
    return undefined
  }
}

/**
 * The feed over `watched`: a change publishes once the files were quiet for `throttleMs`, so a burst
 * of writes (a run, a migration) is one event; a long burst still publishes every 4 windows.
 */
export const makeChangeFeed = <E, R>(watched: Effect.Effect<Watched, E, R>, throttleMs = 250) =>
  Layer.scoped(
    ChangeFeed,
    Effect.gen(function* () {
      const hub = yield* PubSub.sliding<void>(1)
      const closed = yield* Deferred.make<void>()
      const paths = yield* watched
      let timer: ReturnType<typeof setTimeout> | undefined
      let burstStart = 0
      let generation = 0
      const publish = () => {
        timer = undefined
        burstStart = 0
        Effect.runSync(PubSub.publish(hub, undefined))
      }
      // Quiet for `throttleMs` ends a burst (a write, then the closing checkpoint); a burst never holds an event past 4 windows.
      const onChange = (file: string | null) => {
        if (isReadNoise(file)) return
        generation++
        const now = Date.now()
        if (burstStart === 0) burstStart = now
        if (timer !== undefined) clearTimeout(timer)
        timer = setTimeout(publish, Math.max(0, Math.min(throttleMs, burstStart + 4 * throttleMs - now)))
      }
      const watchers = [...paths.trees.map((d) => tryWatch(d, true, onChange)), ...paths.folders.map((d) => tryWatch(d, false, onChange))]
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          if (timer !== undefined) clearTimeout(timer)
          for (const w of watchers) w?.close()
        })
      )
      return ChangeFeed.of({
        changes: Stream.fromPubSub(hub).pipe(Stream.interruptWhen(Deferred.await(closed))),
        close: Deferred.succeed(closed, undefined),
        generation: () => generation,
        kept: new Map(),
        watching: watchers.length > 0 && watchers.every((w) => w !== undefined)
      })
    })
  )
