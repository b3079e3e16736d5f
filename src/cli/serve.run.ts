// Loaded only when `pcli serve` runs: the HTTP server stays off every other command's start-up path.
import { Effect, Layer, Option, Redacted } from "effect"
import { isIP } from "node:net"
import { UsageError } from "../commands/errors"
import { ServeTokenRequired } from "../http/errors"
import { HttpServeLayer } from "../layers/HttpServeLayer"
import { Environment } from "../services/Environment/Environment"
import { type CommonOptions, globalOptions } from "./options"

export interface ServeOptions extends CommonOptions {
  readonly host: string
  readonly port: number
}

const isLoopback = (host: string) =>
  host === "localhost" || host === "::1" || host === "[::1]" || (isIP(host) === 4 && host.startsWith("127."))

/** Resolves on the first SIGINT or SIGTERM, so the server's scope closes and in-flight requests finish. */
const shutdownSignal = Effect.async<void>((resume) => {
  const stop = () => resume(Effect.void)
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
  return Effect.sync(() => {
    process.off("SIGINT", stop)
    process.off("SIGTERM", stop)
  })
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
    const server = HttpServeLayer({ host: opts.host, port: opts.port, token, log }, globalOptions(opts))
    yield* Effect.raceFirst(Layer.launch(server), shutdownSignal)
    log("pcli serve: stopped\n")
  })
