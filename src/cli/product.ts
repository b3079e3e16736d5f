import { Args, Command } from "@effect/cli"
import { Effect } from "effect"
import { type CommonOptions, commonOptions } from "./options"

const impl = Effect.promise(() => import("./product.run"))

type Run = typeof import("./product.run")

const named = <E, R>(name: string, description: string, run: (m: Run, opts: CommonOptions & { readonly name: string }) => Effect.Effect<void, E, R>) =>
  Command.make(name, { ...commonOptions, name: Args.text({ name: "name" }).pipe(Args.withDescription("Product name (products/<name>.toml)")) }, (opts) =>
    Effect.flatMap(impl, (m) => run(m, opts))
  ).pipe(Command.withDescription(description))

const listCommand = Command.make("list", commonOptions, (opts) => Effect.flatMap(impl, (m) => m.runList(opts))).pipe(
  Command.withDescription("Read-only: one row per known product, sorted by name")
)

export const productCommand = Command.make("product").pipe(
  Command.withDescription("Data products: verify, compile (lower), approve, status, list, journal"),
  Command.withSubcommands([
    named("verify", "Three fail-closed checks, writes nothing; exit 0 pass, 1 needs input, 2 fail", (m, o) => m.runVerify(o)),
    named("compile", "Verify, then lower the spec: Phase A (contract) or Phase B (sidecar merge)", (m, o) => m.runCompile(o)),
    named("approve", "Record approval of the current spec revision", (m, o) => m.runApprove(o)),
    named("status", "Read-only: spec, lowering, approval and fulfillment state", (m, o) => m.runStatus(o)),
    listCommand,
    named("journal", "Read-only: fulfillment journal rows in append order", (m, o) => m.runJournal(o))
  ])
)
