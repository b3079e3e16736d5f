import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./audit.run"))

export const auditCommand = Command.make(
  "audit",
  {
    ...commonOptions,
    verify: Options.boolean("verify").pipe(Options.withDescription("Recompute the ledger's hash chain; exit 1 at the first row that does not match")),
    expectHead: Options.text("expect-head").pipe(Options.optional, Options.withDescription("With --verify: a SEQ:HASH pinned outside the store that must be in the chain (exit 1, ledger-truncated, if not)")),
    subject: Options.text("for").pipe(Options.optional, Options.withDescription("Custody chain for a model, run_id or plan_id")),
    scorecard: Options.boolean("scorecard").pipe(Options.withDescription("Acceptance, denial and escalation rates instead of a list")),
    by: Options.choice("by", ["principal", "rule", "scope"]).pipe(Options.optional, Options.withDescription("Scorecard grouping (default principal); requires --scorecard")),
    window: Options.text("window").pipe(Options.optional, Options.withDescription("Scorecard window: all (default), <N>d, <N>h or a start time; requires --scorecard")),
    product: Options.text("product").pipe(Options.optional, Options.withDescription("Decisions about the product's output model (products/<NAME>.toml)")),
    actor: Options.text("actor").pipe(Options.optional, Options.withDescription("Decisions by one principal id; `unrecorded` lists rows without an id")),
    since: Options.text("since").pipe(Options.optional, Options.withDescription("Decisions at or after: YYYY-MM-DD, RFC 3339 with offset, or <N>d / <N>h")),
    model: Options.text("model").pipe(Options.optional, Options.withDescription("Decisions about one model (or freeze scope); conflicts with --product")),
    effect: Options.choice("effect", ["allow", "require_review", "deny"]).pipe(Options.optional, Options.withDescription("Decisions with this effect")),
    limit: Options.integer("limit").pipe(Options.optional, Options.withDescription("A page of at most this many rows (1..1000), with next_cursor")),
    cursor: Options.text("cursor").pipe(Options.optional, Options.withDescription("With --limit: the next_cursor an earlier page returned"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runAudit(opts))
).pipe(Command.withDescription(described("Read the decision ledger: list, scorecard, or --verify the hash chain", "pcli audit --actor bot-1 --since 7d")))
