import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { described } from "./help"
import { commonOptions } from "./options"

const impl = Effect.promise(() => import("./serve.run"))

export const serveCommand = Command.make(
  "serve",
  {
    ...commonOptions,
    host: Options.text("host").pipe(Options.withDefault("127.0.0.1"), Options.withDescription("Address to bind (default 127.0.0.1); off loopback needs PCLI_SERVE_TOKEN")),
    port: Options.integer("port").pipe(Options.withDefault(8080), Options.withDescription("Port (default 8080; 0 picks a free one)"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runServe(opts))
).pipe(
  Command.withDescription(
    described(
      "Read-only HTTP API (/api/v1/…, byte-equal to --output json) and a dashboard at /",
      "pcli serve --port 8080",
      "Opens the state store read-only and never writes. Set PCLI_SERVE_TOKEN to require Authorization: Bearer on every route but /api/v1/health."
    )
  )
)
