// Loaded only when `pcli review` runs. Each form loads its own module when it runs: `--status` and `--list`
// never compile, so they load neither the compile nor the queue's ranking (the light review entry's start-up); the
// queue loads none of the dry run's and --approve's modules.
import { Effect, Option } from "effect"
import { UsageError } from "../commands/errors"
import type { CommonOptions } from "./options"

export interface ReviewOptions extends CommonOptions {
  readonly planId: Option.Option<string>
  readonly queue: boolean
  readonly list: boolean
  readonly base: Option.Option<string>
  readonly approve: boolean
  readonly status: boolean
}

/** The five forms of `pcli review`; conflicting flags are usage errors (exit 2). */
const reviewForm = (opts: ReviewOptions) => {
  if (opts.list) {
    const other = Option.isSome(opts.planId) ? "a plan id" : opts.queue ? "--queue" : opts.approve ? "--approve" : opts.status ? "--status" : Option.isSome(opts.base) ? "--base" : undefined
    return other === undefined ? Effect.succeed({ form: "list" as const }) : Effect.fail(new UsageError({ detail: `--list conflicts with ${other}` }))
  }
  if (opts.status && (opts.approve || opts.queue)) return Effect.fail(new UsageError({ detail: `--status conflicts with ${opts.approve ? "--approve" : "--queue"}` }))
  if (opts.queue && opts.approve) return Effect.fail(new UsageError({ detail: "--queue conflicts with --approve" }))
  if (opts.queue) return Option.isSome(opts.planId) ? Effect.fail(new UsageError({ detail: "--queue takes no plan id" })) : Effect.succeed({ form: "queue" as const })
  if (Option.isNone(opts.planId)) return Effect.fail(new UsageError({ detail: "give a plan id, or --queue" }))
  const planId = opts.planId.value
  return Effect.succeed(opts.status ? { form: "status" as const, planId } : opts.approve ? { form: "approve" as const, planId } : { form: "dry-run" as const, planId })
}

export const runReview = (opts: ReviewOptions) =>
  Effect.gen(function* () {
    const form = yield* reviewForm(opts)
    if (form.form === "status") return yield* Effect.flatMap(Effect.promise(() => import("./reviewStatus.run")), (m) => m.runReviewStatus(opts, form.planId))
    if (form.form === "queue") return yield* Effect.flatMap(Effect.promise(() => import("./reviewQueue.run")), (m) => m.runReviewQueue(opts))
    return yield* Effect.flatMap(Effect.promise(() => import("./reviewForms.run")), (m) => m.runReviewForm(opts, form))
  })
