// The read context `pcli serve` answers from: built once, reused by every request, built again when
// the files it was built from (pcli.toml, the store, its -wal) change on disk.
import type { FileSystem, Path } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Context, Effect, ExecutionStrategy, Exit, Layer, Option, Scope } from "effect"
import { statSync } from "node:fs"
import { join } from "node:path"
import { perTurn, type Seen, seen } from "../../platform/perTurn"
import type { DigestStore } from "../Digest/DigestStore"
import type { Environment } from "../Environment/Environment"
import type { Ledger } from "../Ledger/Ledger"
import type { AppliedState } from "../Plans/AppliedState"
import type { PlanStore } from "../Plans/PlanStore"
import type { ModelAttributesSource } from "../PolicyEngine/attributes"
import type { PolicyEngine } from "../PolicyEngine/PolicyEngine"
import type { InvalidPrincipalClass, InvalidPrincipalId, Principal, PrincipalIdReserved } from "../Principal/Principal"
import type { ModelsOutsideProject } from "../Products/errors"
import type { ProductWorkspace } from "../Products/workspace"
import type { PipelineCompiler } from "../Project/compile"
import type { CompileCacheWrites } from "../Project/cache"
import type { ConfigError } from "../ProjectConfig/ProjectConfig"
import { ProjectContext, type ProjectOptions, resolveProject } from "../ProjectConfig/ProjectContext"
import type { StateStore } from "../StateStore/StateStore"
import type { StateStoreError } from "../StateStore/errors"
import type { InvalidNamespace, InvalidStateUrl } from "../StateStore/paths"

/** What the read context is built over: files, paths, the environment. */
export type Platform = FileSystem.FileSystem | Path.Path | Environment

/** Everything a served read may read: the read-only store, ledger, policy engine, plans, products workspace. */
export type ReadServices =
  | SqlClient.SqlClient
  | DigestStore
  | StateStore
  | Ledger
  | ProjectContext
  | Principal
  | CompileCacheWrites
  | PipelineCompiler
  | ModelAttributesSource
  | PolicyEngine
  | PlanStore
  | AppliedState
  | ProductWorkspace

/** What a served read may require: the read services and the platform under them. */
export type Served = ReadServices | Platform

/** Why the read context could not be built (a pcli.toml that does not load, a store too new or a bad namespace, a bad principal). */
export type ReadBuildError = ConfigError | StateStoreError | InvalidNamespace | InvalidStateUrl | InvalidPrincipalClass | InvalidPrincipalId | PrincipalIdReserved | ModelsOutsideProject

/** The read context for one state of the files it was built from, built once and reused by every request. */
export interface ServeReadsService {
  /** Runs a read on the current context, rebuilding it first when pcli.toml or the store changed on disk. */
  readonly run: <A, E>(self: Effect.Effect<A, E, Served>) => Effect.Effect<A, E | ReadBuildError>
  /**
   * As `run`, for a value that depends on nothing but pcli.toml and the store: the value computed once
   * is answered again while neither changed (the files' stamps and the store's `PRAGMA data_version`)
   * and every input is a local file. Failures are never kept. One route keeps one type of value.
   */
  readonly memo: <A, E>(route: string, body: Effect.Effect<A, E, Served>) => Effect.Effect<A, E | ReadBuildError>
}

export class ServeReads extends Context.Tag("pcli/ServeReads")<ServeReads, ServeReadsService>() {}

/** Identity of a file as it stands: inode, size, mtime (`-` when absent; no exception thrown for that, it is the usual `-wal`). */
const stamp = (path: string) => {
  try {
    const s = statSync(path, { throwIfNoEntry: false })
    return s === undefined ? "-" : `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return "-"
  }
}

interface Watched {
  readonly config: string
  readonly state: string
}

interface Stamps {
  readonly config: string
  readonly state: string
  readonly wal: string
}

const stampsOf = (w: Watched): Stamps => ({ config: stamp(w.config), state: stamp(w.state), wal: stamp(`${w.state}-wal`) })

const keyOf = (s: Stamps) => `${s.config}|${s.state}|${s.wal}`

/** The reference: the watched files as they stand now, read afresh. */
const fingerprint = (w: Watched) => keyOf(stampsOf(w))

/**
 * What one turn of the event loop saw, read at most once and only after every request sharing the
 * turn arrived (platform/perTurn.ts): the watched files' fingerprint, each context's `data_version`.
 */
interface Turn {
  readonly fingerprint: (w: Watched) => string
  readonly versions: Seen
}

const newTurn = (): Turn => {
  const files = seen()
  return { fingerprint: (w) => files.once(w, fingerprint), versions: seen() }
}

interface Built {
  readonly key: string
  readonly watched: Watched
  readonly exit: Exit.Exit<Context.Context<Served>, ReadBuildError>
  readonly scope: Scope.CloseableScope
  /** Values kept for this context, each with the store's `data_version` read before it was computed. */
  readonly kept: Map<string, { readonly version: number; readonly value: unknown }>
  /** False when an input lies outside the watched files (the freeze markers' object tier). */
  readonly memoable: boolean
  /**
   * True when a `-wal` stood beside the store as it was stamped: the store may then be open the
   * ordinary way, where commits show in `data_version` only. With none it was opened `immutable`,
   * and any write makes a `-wal`, which changes the stamps; `data_version` would never move.
   */
  readonly versioned: boolean
}

/** Changes whenever another connection commits to the store (this server never writes it). */
const dataVersion = (sql: SqlClient.SqlClient) =>
  Effect.map(sql.unsafe<{ data_version: number }>("PRAGMA data_version"), (rows) => Number(rows[0]?.data_version ?? -1))

/** Bodies over a remote object tier or a PostgreSQL store could change with no local file changing: they are never kept. */
const onlyLocalInputs = (ctx: Context.Context<ProjectContext>) =>
  Context.get(ctx, ProjectContext).state.pg === undefined &&
  Option.match(Context.get(ctx, ProjectContext).config, {
    onNone: () => true,
    onSome: (c) => c.settings.state?.object_store_url === undefined
  })

/** The store's `data_version` as one turn saw it, read at most once per turn and context; none when it cannot be read. */
const versionIn = (turn: Turn, b: Built, ctx: Context.Context<SqlClient.SqlClient>): Effect.Effect<Option.Option<number>> =>
  b.versioned
    ? turn.versions.once(b, () => Effect.runSync(Effect.cached(Effect.option(dataVersion(Context.get(ctx, SqlClient.SqlClient))))))
    : Effect.succeed(Option.some(0))

/**
 * The server's reads. Opening the store and loading pcli.toml happen once, not per request; a
 * request only looks at the stamps of the config, the store and its `-wal` (read once per turn of
 * the event loop for all the requests that arrived in it, after they arrived), and when any changed
 * the context is built again, so a response never differs from what `pcli <cmd>` would print then.
 */
export const makeServeReads = (options: ProjectOptions, readLayer: Layer.Layer<ReadServices, ReadBuildError, Platform>) =>
  Layer.scoped(
    ServeReads,
    Effect.gen(function* () {
      const outer = yield* Effect.context<Platform>()
      const serverScope = yield* Effect.scope
      const lock = yield* Effect.makeSemaphore(1)
      let watched: Watched = { config: join(options.cwd, "pcli.toml"), state: join(options.cwd, "models", ".pcli-state.sqlite") }
      let current: Built | undefined
      // The context before the current one stays open: a request begun on it may still be running.
      let previous: Built | undefined

      const build =
        Effect.gen(function* () {
          // The paths to watch come from the config as it is now, even when the build below fails (a newer store).
          const project = yield* Effect.option(Effect.provide(resolveProject(options, false), outer))
          if (Option.isSome(project)) {
            const p = project.value
            watched = { config: Option.match(p.config, { onNone: () => join(p.root, "pcli.toml"), onSome: (c) => c.file }), state: p.state.path }
          }
          // Stamped before the build: a change while it runs makes the next request build again.
          const stamps = stampsOf(watched)
          const key = keyOf(stamps)
          const scope = yield* Scope.fork(serverScope, ExecutionStrategy.sequential)
          const exit = yield* Effect.exit(
            Layer.buildWithScope(readLayer, scope).pipe(
              Effect.map((ctx) => Context.merge(outer, ctx)),
              Effect.provide(outer)
            )
          )
          const memoable = Exit.match(exit, { onFailure: () => false, onSuccess: onlyLocalInputs })
          const built: Built = { key, watched, exit, scope, kept: new Map(), memoable, versioned: stamps.wal !== "-" }
          if (previous !== undefined) yield* Scope.close(previous.scope, Exit.void)
          previous = current
          current = built
          return built
        })

      const turns = perTurn(newTurn)
      const currentContext = Effect.flatMap(turns, (turn) => {
        const c = current
        if (c !== undefined && turn.fingerprint(c.watched) === c.key) return Effect.succeed([c, turn] as const)
        return lock.withPermits(1)(
          Effect.suspend(() => {
            // Read afresh under the lock: another request may have rebuilt already.
            const again = current
            const ready = again !== undefined && fingerprint(again.watched) === again.key ? Effect.succeed(again) : build
            return Effect.map(ready, (b) => [b, turn] as const)
          })
        )
      })

      yield* currentContext
      const run = <A, E>(self: Effect.Effect<A, E, Served>) => Effect.flatMap(currentContext, ([b]) => Effect.flatMap(b.exit, (ctx) => Effect.provide(self, ctx)))
      return ServeReads.of({
        run,
        memo: <A, E>(route: string, body: Effect.Effect<A, E, Served>) =>
          Effect.flatMap(currentContext, ([b, turn]) =>
            b.memoable
              ? Effect.flatMap(b.exit, (ctx) =>
                  // The hit path provides nothing: only a value computed afresh runs on the context.
                  Effect.flatMap(versionIn(turn, b, ctx), (version) => {
                    if (Option.isNone(version)) return Effect.provide(body, ctx)
                    const kept = b.kept.get(route)
                    if (kept !== undefined && kept.version === version.value) return Effect.succeed(kept.value as A)
                    // Read before the value: a commit while it is computed makes the next request compute again.
                    return Effect.tap(Effect.provide(body, ctx), (value) => Effect.sync(() => b.kept.set(route, { version: version.value, value })))
                  })
                )
              : run(body)
          )
      })
    })
  )
