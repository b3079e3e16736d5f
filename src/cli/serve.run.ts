// Loaded only when `pcli serve` runs: the HTTP server stays off every other command's start-up path.
import { HttpServer } from "@effect/platform"
import { Deferred, Effect, Exit, Layer, Option, Redacted } from "effect"
import { isIP } from "node:net"
import { UsageError } from "../commands/errors"
import { ServeTokenRequired } from "../http/errors"
import { lineBatch } from "../http/requestLog"
import { HttpServeLayer } from "../layers/HttpServeLayer"
import { Environment } from "../services/Environment/Environment"
import { resolveProject } from "../services/ProjectConfig/ProjectContext"
import { type CommonOptions, globalOptions } from "./options"

export interface ServeOptions extends CommonOptions {
  readonly host: string
  readonly port: number
}

const isLoopback = (host: string) =>
  host === "localhost" || host === "::1" || host === "[::1]" || (isIP(host) === 4 && host.startsWith("127."))

/** Installs SIGINT/SIGTERM handlers for the scope's life; the returned effect resolves on the first signal. */
const shutdownSignal = Effect.gen(function* () {
  const signalled = yield* Deferred.make<void>()
  const stop = () => Deferred.unsafeDone(signalled, Exit.void)
  yield* Effect.acquireRelease(
    Effect.sync(() => {
      process.on("SIGINT", stop)
      process.on("SIGTERM", stop)
    }),
    () =>
      Effect.sync(() => {
        process.off("SIGINT", stop)
        process.off("SIGTERM", stop)
      })
  )
  return Deferred.await(signalled)
})

const log = (line: string) => void process.stderr.write(line)

export const runServe = (opts: ServeOptions) =>
  Effect.gen(function* () {
    if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
      return yield* new UsageError({ detail: `--port must be 0..65535, got ${opts.port}` })
    }
    const env = yield* Environment
    const token = Option.fromNullable(env.PCLI_SERVE_TOKEN).pipe(Option.filter((t) => t !== ""), Option.map(Redacted.make))
    if (!isLoopback(opts.host) && Option.isNone(token)) return yield* new ServeTokenRequired({ host: opts.host })
    // A pcli.toml that does not load is refused here, as every command refuses it (a missing one is fine).
    yield* resolveProject(globalOptions(opts), false)
    // Under load a write per request line costs a tenth of the server's time: lines go out in batches.
    const requests = lineBatch(log)
    const server = HttpServeLayer({ host: opts.host, port: opts.port, token, log: requests.line }, globalOptions(opts))
    // The scope closes on the signal: the server stops accepting, finishes what is in flight, closes the store.
    yield* Effect.scoped(
      Effect.gen(function* () {
        const signalled = yield* shutdownSignal
        const built = yield* Layer.build(server)
        // Printed once every route can answer: callers may wait for this line.
        yield* HttpServer.addressFormattedWith((address) => Effect.sync(() => log(`pcli serve: listening on ${address}\n`))).pipe(Effect.provide(built))
        yield* signalled
      })
    ).pipe(Effect.ensuring(Effect.sync(requests.flush)))
    log("pcli serve: stopped\n")
  })
