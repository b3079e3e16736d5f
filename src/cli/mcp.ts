import { Command, Options } from "@effect/cli"
import { Effect, Layer } from "effect"
import { described } from "./help"
import { commonOptions, globalOptions } from "./options"

declare const PCLI_VERSION: string

/** Resolves when the client closes our stdin: the session is over and the server exits 0. */
const stdinClosed = Effect.async<void>((resume) => {
  const done = () => resume(Effect.void)
  process.stdin.once("end", done).once("close", done)
  return Effect.sync(() => void process.stdin.off("end", done).off("close", done))
})

export const mcpCommand = Command.make(
  "mcp",
  {
    ...commonOptions,
    profile: Options.text("profile").pipe(
      Options.withDefault("default"),
      Options.withDescription("Profile name: the server acts as agent mcp-<profile> ([a-z0-9._-])")
    )
  },
  (opts) =>
    Effect.gen(function* () {
      const { mcpServer } = yield* Effect.promise(() => import("../mcp/server"))
      const version = typeof PCLI_VERSION === "string" ? PCLI_VERSION : "dev"
      yield* Effect.raceFirst(Layer.launch(mcpServer(globalOptions(opts), opts.profile, version)), stdinClosed)
    })
).pipe(
  Command.withDescription(
    described(
      "Serve the MCP tools over stdio for an agent; every write is gated by policy and attributed to agent mcp-<profile>",
      "pcli mcp --profile claude --config pcli.toml"
    )
  )
)
