import { Command, type HelpDoc, Options } from "@effect/cli"
import { Effect } from "effect"
import { type CommonOptions, commonOptions } from "./options"
import { described } from "./help"

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
).pipe(
  Command.withDescription(
    described(
      "Read-only: explain the effect a rule resolves to (verdict, matched rule, reason)",
      "pcli policy check --principal agent --capability apply --model orders"
    )
  )
)

const plain = <E, R>(
  name: string,
  description: HelpDoc.HelpDoc,
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

const freezeLike = (name: "freeze" | "unfreeze", description: HelpDoc.HelpDoc) =>
  Command.make(name, freezeOptions, (opts) => Effect.flatMap(impl, (m) => m.runFreeze(name, opts))).pipe(Command.withDescription(description))

// `--config` names the proposed pcli.toml here; the current project is the nearest pcli.toml.
const { config: _projectConfig, ...replayCommon } = commonOptions

const replayCommand = Command.make(
  "replay",
  {
    ...replayCommon,
    proposed: Options.text("config").pipe(Options.withDescription("The proposed pcli.toml whose [policy] block is replayed")),
    since: Options.text("since").pipe(Options.optional, Options.withDescription("Only evaluations at or after: YYYY-MM-DD, RFC 3339 with offset, or <N>d / <N>h")),
    failOnLoosen: Options.boolean("fail-on-loosen").pipe(Options.withDescription("Exit 1 when any recorded decision would loosen (a CI gate for policy edits)"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runReplay(opts))
).pipe(
  Command.withDescription(
    described("Read-only: re-evaluate every recorded evaluation under a proposed policy and list the flips", "pcli policy replay --config proposed/pcli.toml --fail-on-loosen")
  )
)

export const policyCommand = Command.make("policy").pipe(
  Command.withDescription(described("The policy plane: check, test, show, freeze, unfreeze, replay", "pcli policy show --output json")),
  Command.withSubcommands([
    checkCommand,
    plain("test", described("Run [[policy.tests]] through the real evaluator; exit 1 when any result differs", "pcli policy test"), (m, o) => m.runTest(o)),
    plain("show", described("Read-only: rules, default agent effect, freezes in force and their sources", "pcli policy show"), (m, o) => m.runShow(o)),
    freezeLike(
      "freeze",
      described(
        "Record a freeze: forces deny for the principal and scope (no config file is rewritten)",
        'pcli policy freeze --principal agent --scope layer=2 --reason "quarter close"'
      )
    ),
    freezeLike("unfreeze", described("Lift a freeze recorded with exactly this principal and scope", "pcli policy unfreeze --principal agent --scope layer=2")),
    replayCommand
  ])
)
