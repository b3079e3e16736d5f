import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { type CommonOptions, commonOptions } from "./options"

const impl = Effect.promise(() => import("./policy.run"))

// Principal and capability are plain strings so a bad value reaches the typed error (exit 1), not a parse error (exit 2).
const checkCommand = Command.make(
  "check",
  {
    ...commonOptions,
    principal: Options.text("principal").pipe(Options.withDescription("Acting principal: human or agent")),
    capability: Options.text("capability").pipe(Options.withDescription("Capability attempted, e.g. apply")),
    model: Options.text("model").pipe(Options.withDescription("Target model"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runCheck(opts))
).pipe(Command.withDescription("Read-only: explain the effect a rule resolves to (verdict, matched rule, reason)"))

const plain = <E, R>(
  name: string,
  description: string,
  run: (m: typeof import("./policy.run"), opts: CommonOptions) => Effect.Effect<void, E, R>
) => Command.make(name, commonOptions, (opts) => Effect.flatMap(impl, (m) => run(m, opts))).pipe(Command.withDescription(description))

const freezeOptions = {
  ...commonOptions,
  principal: Options.text("principal").pipe(Options.optional, Options.withDescription("human or agent (default: both)")),
  scope: Options.text("scope").pipe(
    Options.optional,
    Options.withDescription("Selector: any | layer=<n> | model=<glob> | classification=<v> | tag=<k>[=<v>]")
  ),
  reason: Options.text("reason").pipe(Options.optional, Options.withDescription("Reason recorded on the ledger row"))
}

const freezeLike = (name: "freeze" | "unfreeze", description: string) =>
  Command.make(name, freezeOptions, (opts) => Effect.flatMap(impl, (m) => m.runFreeze(name, opts))).pipe(Command.withDescription(description))

export const policyCommand = Command.make("policy").pipe(
  Command.withDescription("The policy plane: check, test, show, freeze, unfreeze"),
  Command.withSubcommands([
    checkCommand,
    plain("test", "Run [[policy.tests]] through the real evaluator; non-zero when any differs", (m, o) => m.runTest(o)),
    plain("show", "Read-only: rules, default agent effect, freezes in force and their sources", (m, o) => m.runShow(o)),
    freezeLike("freeze", "Record a freeze: forces deny for the principal and scope (no config file is rewritten)"),
    freezeLike("unfreeze", "Lift a freeze recorded with exactly this principal and scope")
  ])
)
