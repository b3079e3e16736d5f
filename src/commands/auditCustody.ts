import { Effect, Either, Option } from "effect"
import type { CustodyOutput } from "../schemas/audit"
import type { BriefRun } from "../schemas/brief"
import type { LedgerRow } from "../schemas/ledger"
import { isGatedPlan, type Plan } from "../schemas/plans"
import { DigestStore } from "../services/Digest/DigestStore"
import { Environment } from "../services/Environment/Environment"
import { Ledger, type LedgerFilter } from "../services/Ledger/Ledger"
import { PlanStore } from "../services/Plans/PlanStore"
import { compiledGraph, downstreamClosure } from "../services/Project/compile"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"

export interface CustodyInput {
  readonly subject: string
}

const PLAN_ID = /^[0-9a-f]{64}$/
type Link = { readonly availability: "available" | "no_data" | "unavailable"; readonly note?: string }
const link = (availability: Link["availability"], note?: string): Link => (note === undefined ? { availability } : { availability, note })

// `list`, not `query`'s Stream: the same rows in the same order, without a stream's fibers per read (three reads here).
const newestFirst = (filter: LedgerFilter) => Effect.map(Effect.flatMap(Ledger, (l) => l.list(filter)), (rows) => [...rows].reverse())

/** A plan id a decision names that is a plan (not a freeze or unfreeze record). */
const isPlanRef = (planId: string | null): planId is string => planId !== null && !/^(un)?freeze:/.test(planId)

const label = (principal: string, id: string | null) => `${principal}(${id ?? "unrecorded"})`

/** Subject resolution: a plan file on disk, else a recorded run, else a plan the ledger names, else a model. */
const resolve = (subject: string) =>
  Effect.gen(function* () {
    const plans = yield* PlanStore
    const digest = yield* DigestStore
    const planFile = PLAN_ID.test(subject) ? yield* Effect.either(plans.read(subject)) : undefined
    if (planFile !== undefined && Either.isRight(planFile)) return { kind: "plan" as const, planFile: Option.some(planFile.right) }
    const run = (yield* digest.runsFor({ runId: subject }))[0]
    if (run !== undefined) return { kind: "run" as const, run }
    const named = yield* newestFirst({ planId: subject })
    if (named.length > 0) return { kind: "plan" as const, planFile: Option.none<Plan>() }
    return { kind: "model" as const }
  })

/**
 * `pcli audit --for <subject>`: the custody chain of a plan, a run or a model — proposer, policy
 * decisions, the plan's changes and approval, runs, post-apply verification, and the downstream
 * blast radius from the compiled DAG. Read-only; each link says when it has nothing to show.
 */
export const auditCustody = (input: CustodyInput) =>
  Effect.gen(function* () {
    const plans = yield* PlanStore
    const digest = yield* DigestStore
    const found = yield* resolve(input.subject)

    // The plan the chain hangs on: the subject, the run's plan, or the model's newest planned decision.
    const modelDecisions = found.kind === "model" ? yield* newestFirst({ models: [input.subject] }) : []
    const planId =
      found.kind === "plan" ? input.subject : found.kind === "run" ? found.run.plan_id : (modelDecisions.find((r) => isPlanRef(r.plan_id))?.plan_id ?? null)
    const planRows = planId === null ? [] : yield* newestFirst({ planId })
    const planFile: Option.Option<Plan> =
      found.kind === "plan" && Option.isSome(found.planFile)
        ? found.planFile
        : planId === null
          ? Option.none()
          : Either.getRight(yield* Effect.either(plans.read(planId)))

    const decisionsOf: ReadonlyArray<LedgerRow> = (found.kind === "model" ? modelDecisions : planRows).filter((r) => r.kind !== "verification")
    const decisions = {
      ...(found.kind === "run" && planId === null
        ? link("unavailable", "the run was not started by `pcli apply`: no plan links it to decisions")
        : decisionsOf.length === 0
          ? link("no_data", "no decision recorded")
          : link("available")),
      total: decisionsOf.length,
      entries: [...decisionsOf]
    }

    const approvalRow = planRows.find((r) => r.kind === "approval")
    const gitIdentity = approvalRow?.reason?.match(/^plan approved by (.+) at \S+$/)?.[1]
    const approval =
      approvalRow === undefined
        ? null
        : {
            approver: label(approvalRow.principal, approvalRow.principal_id),
            ...(gitIdentity === undefined ? {} : { git_identity: gitIdentity }),
            approved_at: approvalRow.timestamp,
            decision_ref: approvalRow.decision_ref
          }
    const plan = Option.match(planFile, {
      onNone: () => ({
        ...(planId === null ? link("unavailable", "no plan is linked to the subject") : link("unavailable", `plan file for ${planId} not found (never written here, or deleted)`)),
        plan_id: planId,
        kind: null,
        proposer: null,
        created_at: null,
        changes: [],
        models: [],
        approval
      }),
      onSome: (p) => ({
        ...link("available"),
        plan_id: p.plan_id,
        kind: p.kind,
        proposer: `${p.principal.class}(${p.principal.id})`,
        created_at: p.created_at,
        changes: isGatedPlan(p) ? p.payload.models.map((model) => ({ model, change_class: p.kind })) : p.payload.changes.map((c) => ({ model: c.model, change_class: c.change_class })),
        models: [...p.payload.models],
        approval
      })
    })

    const runList: ReadonlyArray<BriefRun> =
      found.kind === "run"
        ? [found.run]
        : found.kind === "plan"
          ? yield* digest.runsFor({ planId: input.subject })
          : yield* digest.runsFor({ model: input.subject })
    const runs = { ...(runList.length === 0 ? link("no_data", "no recorded run") : link("available")), total: runList.length, runs: [...runList] }

    const verifications = planRows.filter((r) => r.kind === "verification")
    const verify_after = {
      ...(planId === null
        ? link("unavailable", "no plan is linked to the subject")
        : verifications.length === 0
          ? link("no_data", "no verify_after check ran for the plan")
          : link("available")),
      total: verifications.length,
      entries: verifications.map((r) => ({ timestamp: r.timestamp, decision_ref: r.decision_ref, plan_id: r.plan_id, rule_id: r.rule_id, passed: r.effect === "allow", reason: r.reason }))
    }

    // Blast radius: the subject model, the models the plan changes, or the models the run executed.
    const roots =
      found.kind === "model"
        ? [input.subject]
        : Option.isSome(planFile)
          ? isGatedPlan(planFile.value)
            ? [...planFile.value.payload.models]
            : planFile.value.payload.changes.map((c) => c.model)
          : found.kind === "run"
            ? yield* digest.modelsOfRun(found.run.run_id)
            : []
    const { modelsDir } = yield* ProjectContext
    const compiled = yield* Effect.either(Effect.flatMap(Environment, (env) => compiledGraph({ modelsDir, env })))
    const blast_radius = Either.match(compiled, {
      onLeft: (e) => ({ ...link("unavailable", `${modelsDir} does not compile: ${e.message}`), models: roots, direct: [], transitive: [], total: 0 }),
      onRight: (project) => {
        const known = roots.filter((m) => project.models.has(m))
        if (known.length === 0) return { ...link("no_data", "the subject's models are not in the compiled graph"), models: roots, direct: [], transitive: [], total: 0 }
        const own = new Set(known)
        const direct = new Set<string>()
        const transitive = new Set<string>()
        for (const m of known) {
          for (const d of project.downstream.get(m) ?? []) if (!own.has(d)) direct.add(d)
          for (const d of downstreamClosure(project, m)) if (!own.has(d)) transitive.add(d)
        }
        return { ...link("available"), models: known, direct: [...direct].sort(), transitive: [...transitive].sort(), total: transitive.size }
      }
    })

    const out: CustodyOutput = {
      command: "audit_custody",
      subject: input.subject,
      subject_kind: found.kind,
      resolved: found.kind !== "model" || decisionsOf.length > 0 || runList.length > 0 || blast_radius.availability === "available",
      decisions,
      plan,
      runs,
      verify_after,
      blast_radius
    }
    return out
  })
