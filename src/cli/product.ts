import { Args, Command, type HelpDoc } from "@effect/cli"
import { Effect } from "effect"
import { type CommonOptions, commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./product.run"))

type Run = typeof import("./product.run")

const named = <E, R>(name: string, description: HelpDoc.HelpDoc, run: (m: Run, opts: CommonOptions & { readonly name: string }) => Effect.Effect<void, E, R>) =>
  Command.make(name, { ...commonOptions, name: Args.text({ name: "name" }).pipe(Args.withDescription("Product name (products/<name>.toml)")) }, (opts) =>
    Effect.flatMap(impl, (m) => run(m, opts))
  ).pipe(Command.withDescription(description))

const listCommand = Command.make("list", commonOptions, (opts) => Effect.flatMap(impl, (m) => m.runList(opts))).pipe(
  Command.withDescription(described("Read-only: one row per known product, sorted by name", "pcli product list --output json"))
)

export const productCommand = Command.make("product").pipe(
  Command.withDescription(described("Data products: verify, compile (lower), approve, status, list, journal", "pcli product verify orders")),
  Command.withSubcommands([
    named("verify", described("Three fail-closed checks, writes nothing; exit 0 pass, 1 needs input, 2 fail", "pcli product verify orders"), (m, o) => m.runVerify(o)),
    named("compile", described("Verify, then lower the spec: Phase A (contract) or Phase B (sidecar merge)", "pcli product compile orders"), (m, o) => m.runCompile(o)),
    named("approve", described("Record approval of the current spec revision", "pcli product approve orders"), (m, o) => m.runApprove(o)),
    named("status", described("Read-only: spec, lowering, approval and fulfillment state", "pcli product status orders --output json"), (m, o) => m.runStatus(o)),
    listCommand,
    named("journal", described("Read-only: fulfillment journal rows in append order", "pcli product journal orders"), (m, o) => m.runJournal(o))
  ])
)
