import { SqlClient } from "@effect/sql"
import { Context, Effect, ExecutionStrategy, Exit, Layer, Option, Scope } from "effect"
import { statSync } from "node:fs"
import { join } from "node:path"
import { ProjectContext, resolveProject } from "../services/ProjectConfig/ProjectContext"
import * as Compiler from "../services/Project/compile"
import { CompileCacheWrites } from "../services/Project/compileCache"
import { plansLayer } from "./GovernLayer"
import { ProductWorkspaceLayer } from "./ProductLayer"
import { type GlobalOptions, ReadOnlyLayer } from "./ProjectLayer"

/** Everything a served read needs: the read-only store, ledger, policy engine, products workspace; compiles never write their cache. */
const readLayer = (options: GlobalOptions) =>
  Layer.mergeAll(plansLayer, Compiler.layer, ProductWorkspaceLayer(options)).pipe(
    Layer.provideMerge(ReadOnlyLayer(options)),
    Layer.provideMerge(Layer.succeed(CompileCacheWrites, false))
  )

type ReadLayer = ReturnType<typeof readLayer>
export type ReadServices = Layer.Layer.Success<ReadLayer>
type ReadBuildError = Layer.Layer.Error<ReadLayer>
type Outer = Layer.Layer.Context<ReadLayer>
/** What a served read may require: the read services and the platform under them. */
export type Served = ReadServices | Outer

/** The read context for one state of the files it was built from, built once and reused by every request. */
export interface ServeReadsService {
  /** Runs a read on the current context, rebuilding it first when pcli.toml or the store changed on disk. */
  readonly run: <A, E>(self: Effect.Effect<A, E, Served>) => Effect.Effect<A, E | ReadBuildError>
  /**
   * As `run`, for a body that depends on nothing but pcli.toml and the store: the body computed once
   * is answered again while neither changed (the files' stamps and the store's `PRAGMA data_version`)
   * and every input is a local file. Failures are never kept.
   */
  readonly memo: <E>(route: string, body: Effect.Effect<string, E, Served>) => Effect.Effect<string, E | ReadBuildError>
}

export class ServeReads extends Context.Tag("pcli/ServeReads")<ServeReads, ServeReadsService>() {}

/** Identity of a file as it stands: inode, size, mtime (`-` when absent). */
const stamp = (path: string) => {
  try {
    const s = statSync(path)
    return `${s.ino}:${s.size}:${s.mtimeMs}`
  } catch {
    return "-"
  }
}

interface Watched {
  readonly config: string
  readonly state: string
}

const fingerprint = (w: Watched) => `${stamp(w.config)}|${stamp(w.state)}|${stamp(`${w.state}-wal`)}`

interface Built {
  readonly key: string
  readonly watched: Watched
  readonly exit: Exit.Exit<Context.Context<ReadServices | Outer>, ReadBuildError>
  readonly scope: Scope.CloseableScope
  /** Bodies kept for this context, each with the store's `data_version` read before it was computed. */
  readonly bodies: Map<string, { readonly version: number; readonly body: string }>
  /** False when an input lies outside the watched files (the freeze markers' object tier). */
  readonly memoable: boolean
}

/** Changes whenever another connection commits to the store (this server never writes it). */
const dataVersion = (sql: SqlClient.SqlClient) =>
  Effect.map(sql.unsafe<{ data_version: number }>("PRAGMA data_version"), (rows) => Number(rows[0]?.data_version ?? -1))

/** Bodies over a remote object tier could change with no local file changing: they are never kept. */
const onlyLocalInputs = (ctx: Context.Context<ProjectContext>) =>
  Option.match(Context.get(ctx, ProjectContext).config, {
    onNone: () => true,
    onSome: (c) => c.settings.state?.object_store_url === undefined
  })

/**
 * The server's reads. Opening the store and loading pcli.toml happen once, not per request; a
 * request only stats the config, the store and its `-wal`, and when any changed the context is
 * built again, so a response never differs from what `pcli <cmd>` would print at that moment.
 */
export const ServeReadsLayer = (options: GlobalOptions) =>
  Layer.scoped(
    ServeReads,
    Effect.gen(function* () {
      const outer = yield* Effect.context<Outer>()
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
          const key = fingerprint(watched)
          const scope = yield* Scope.fork(serverScope, ExecutionStrategy.sequential)
          const exit = yield* Effect.exit(
            Layer.buildWithScope(readLayer(options), scope).pipe(
              Effect.map((ctx) => Context.merge(outer, ctx)),
              Effect.provide(outer)
            )
          )
          const memoable = Exit.match(exit, { onFailure: () => false, onSuccess: onlyLocalInputs })
          const built: Built = { key, watched, exit, scope, bodies: new Map(), memoable }
          if (previous !== undefined) yield* Scope.close(previous.scope, Exit.void)
          previous = current
          current = built
          return built
        })

      const currentContext = Effect.suspend(() => {
        const c = current
        if (c !== undefined && fingerprint(c.watched) === c.key) return Effect.succeed(c)
        return lock.withPermits(1)(
          Effect.suspend(() => {
            const again = current
            return again !== undefined && fingerprint(again.watched) === again.key ? Effect.succeed(again) : build
          })
        )
      })

      yield* currentContext
      const run = <A, E>(self: Effect.Effect<A, E, Served>) => Effect.flatMap(currentContext, (b) => Effect.flatMap(b.exit, (ctx) => Effect.provide(self, ctx)))
      return ServeReads.of({
        run,
        memo: (route, body) =>
          Effect.flatMap(currentContext, (b) =>
            b.memoable
              ? Effect.flatMap(b.exit, (ctx) =>
                  // The hit path provides nothing: only a body computed afresh runs on the context.
                  Effect.flatMap(Effect.option(dataVersion(Context.get(ctx, SqlClient.SqlClient))), (version) => {
                    if (Option.isNone(version)) return Effect.provide(body, ctx)
                    const kept = b.bodies.get(route)
                    if (kept !== undefined && kept.version === version.value) return Effect.succeed(kept.body)
                    // Read before the body: a commit while it is computed makes the next request compute again.
                    return Effect.tap(Effect.provide(body, ctx), (text) => Effect.sync(() => b.bodies.set(route, { version: version.value, body: text })))
                  })
                )
              : run(body)
          )
      })
    })
  )
