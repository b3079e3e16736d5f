// Loaded only when `pcli serve` runs: the HTTP server stays off every other command's start-up path.
import { HttpServer } from "@effect/platform"
import { Deferred, Effect, Exit, Layer } from "effect"
import { checkServeFlags, serveToken } from "../commands/serve"
import * as commandLayer from "../layers/commandLayers"
import { lineBatch } from "../http/requestLog"
import { type CommonOptions, globalOptions } from "./options"

export interface ServeOptions extends CommonOptions {
  readonly host: string
  readonly port: number
}

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
    // Usage errors first: nothing is opened for a command line that cannot mean anything.
    yield* checkServeFlags({ host: opts.host, port: opts.port })
    const token = yield* serveToken({ host: opts.host, port: opts.port }).pipe(Effect.provide(commandLayer.serve(globalOptions(opts))))
    // Under load a write per request line costs a tenth of the server's time: lines go out in batches.
    const requests = lineBatch(log)
    const server = commandLayer.serveHttp(globalOptions(opts), { host: opts.host, port: opts.port, token, log: requests.line })
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
