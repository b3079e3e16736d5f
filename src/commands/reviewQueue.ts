// `pcli review --queue` (apart from reviewPlan.ts, whose dry run and approval diff, gate and rederive: the queue loads none of that).
import type { FileSystem, Path } from "@effect/platform"
import { Clock, Effect, Either } from "effect"
import type { ReviewQueueOutput } from "../schemas/reviewQueueOutput"
import { Environment } from "../services/Environment/Environment"
import type { Ledger, LedgerUnavailable } from "../services/Ledger/Ledger"
import { reviewState } from "../services/Plans/approvals"
import type { PlanStoreIo } from "../services/Plans/errors"
import { PlanStore } from "../services/Plans/PlanStore"
import { type Downstream, isPending, mayBePending, rankQueue } from "../services/Plans/queue"
import { issuingRecorded, originNotes, recordedOrigins, withOrigin } from "../services/Plans/recordedOrigin"
import { staleOf } from "../services/Plans/revisions"
import type { PipelineCompiler } from "../services/Project/compile"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"

// The compile (its reader, cache and graph) loads only when a pending plan needs its blast radius.
const compiler = Effect.promise(() => import("../services/Project/compile"))

/** `pcli review --queue`: pending review-gated plans, highest score first (see queue.ts). */
export const reviewQueue: Effect.Effect<ReviewQueueOutput, PlanStoreIo | LedgerUnavailable, PlanStore | Ledger | PipelineCompiler | Environment | ProjectContext | FileSystem.FileSystem | Path.Path> =
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const store = yield* PlanStore
    const listed = yield* store.list
    const plans = listed.flatMap((e) => (Either.isRight(e) ? [e.right] : []))
    const broken = listed.flatMap((e) => (Either.isLeft(e) ? [e.left] : []))
    const env = yield* Environment
    // Author and age are the ledger's (one read for all), the file's only when the ledger has none: pending can turn on the author.
    const origins = yield* recordedOrigins(plans.filter(mayBePending))
    const entries = yield* Effect.forEach(plans, (file) =>
      Effect.gen(function* () {
        const origin = origins.get(file.plan_id)
        const plan = withOrigin(file, origin)
        const marker = yield* reviewState(plan.plan_id)
        const pending = isPending(plan, marker, origin?.reviewAtIssue === true)
        // Only a pending plan is listed: another's staleness (its models' files read and hashed) is never shown.
        if (!pending) return { file, plan, marker, pending, stale: false }
        const stale = yield* Effect.orElseSucceed(staleOf(plan, modelsDir), () => [] as ReadonlyArray<string>)
        return { file, plan, marker, pending, stale: stale.length > 0 }
      })
    )
    const pendingPlans = entries.flatMap((e) => (e.pending ? [e.file] : []))
    // The blast radius ranks pending plans alone: with none, the project is not compiled (nor its modules loaded).
    const compiled = pendingPlans.length > 0
      ? yield* Effect.either(
          Effect.flatMap(compiler, (c) =>
            Effect.map(c.compiledGraph({ modelsDir: modelsDir, env }), (project): Downstream => (model) => c.downstreamClosure(project, model))
          )
        )
      : Either.right(undefined)
    const pending = rankQueue(entries, Either.getOrUndefined(compiled), yield* Clock.currentTimeMillis)
    const notes = [
      ...(Either.isLeft(compiled) ? [`${modelsDir} does not compile (${compiled.left.message}): blast radius unknown`] : []),
      ...broken.map((e) => `not listed (${e.code}): ${e.message}`),
      ...originNotes(pendingPlans, origins, yield* issuingRecorded)
    ]
    return {
      command: "review_queue" as const,
      ranking: "(blast_radius + 1) × class_weight × (1 + staleness_hours)" as const,
      total: pending.length,
      pending: [...pending],
      ...(notes.length === 0 ? {} : { notes })
    }
  })
