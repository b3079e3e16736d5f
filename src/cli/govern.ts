import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"
import { selectOption } from "./inspect"

const impl = Effect.promise(() => import("./govern.run"))
const reviewImpl = Effect.promise(() => import("./review.run"))

const planCommand = Command.make(
  "plan",
  {
    ...commonOptions,
    model: Options.text("model").pipe(Options.repeated, Options.withDescription("Plan only these models (repeatable; their downstream still rebuilds)")),
    select: selectOption,
    base: Options.text("base").pipe(Options.optional, Options.withDescription("Diff against this git ref instead of the last applied state")),
    promote: Options.text("promote").pipe(Options.optional, Options.withDescription("Plan promoting this branch: every production view to point at the branch's table"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runPlan(opts))
).pipe(
  Command.withDescription(
    described("Write a plan: diff the models, classify each change, evaluate policy (recorded)", "pcli plan --model orders --base main")
  )
)

const reviewCommand = Command.make(
  "review",
  {
    ...commonOptions,
    planId: Args.text({ name: "plan-id" }).pipe(Args.optional, Args.withDescription("The plan to review")),
    queue: Options.boolean("queue").pipe(Options.withDescription("List pending review-gated plans, highest blast radius first")),
    list: Options.boolean("list").pipe(Options.withDescription("Read-only: every plan in the store with its review state, newest first")),
    base: Options.text("base").pipe(Options.optional, Options.withDescription("Recompute findings against this git ref")),
    approve: Options.boolean("approve").pipe(Options.withDescription("Record the sign-off marker for this plan")),
    status: Options.boolean("status").pipe(Options.withDescription("Read-only: is there a well-formed marker, who approved and when"))
  },
  (opts) => Effect.flatMap(reviewImpl, (m) => m.runReview(opts))
).pipe(
  Command.withDescription(
    described("Review a plan: dry run, --approve, --status, --queue or --list", "pcli review --queue")
  )
)

const applyCommand = Command.make(
  "apply",
  {
    ...commonOptions,
    planId: Args.text({ name: "plan-id" }).pipe(Args.withDescription("The plan to apply")),
    target: Options.text("target").pipe(Options.optional, Options.withDescription("Adapter to run on (default: the warehouse adapter, else embedded)"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runApply(opts))
).pipe(
  Command.withDescription(
    described("Apply a plan through the policy gate and the review gate, then build it", 'pcli apply "$PLAN_ID"')
  )
)

const rollbackCommand = Command.make(
  "rollback",
  {
    ...commonOptions,
    to: Options.text("to").pipe(Options.optional, Options.withDescription("Put production's views where this applied promote left them (default: undo the last promote)"))
  },
  (opts) => Effect.flatMap(impl, (m) => m.runRollback(opts))
).pipe(
  Command.withDescription(
    described("Put production's views back where the last promote found them, through the same gate as apply", "pcli rollback")
  )
)

export const governCommands = [planCommand, reviewCommand, applyCommand, rollbackCommand] as const
