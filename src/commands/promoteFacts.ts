import { Effect, Either, Option, Schema } from "effect"
import * as NodeFs from "node:fs"
import { isGatedPlan, type GatedPlan } from "../schemas/plans"
import { canonicalJson, hashCanonical } from "../services/Artifacts/artifacts"
import { Environment } from "../services/Environment/Environment"
import { type CompiledModelFacts, factsOf } from "../services/PolicyEngine/attributes"
import type { ModelFactsSource } from "../services/Plans/gate"
import { PlanIntegrity } from "../services/Plans/errors"
import { PlanStore } from "../services/Plans/PlanStore"
import { readWorkingTree } from "../services/Plans/revisions"
import { type CompiledProject, PipelineCompiler } from "../services/Project/compile"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { RunStore, RunStoreFailed } from "../services/Runner/RunStore"
import { StateHashMismatch } from "./environmentErrors"

/**
 * Decision 37: a promote plan carries the policy facts of its models (tags, classifications,
 * contract, layer, blast radius) as `pcli plan --promote` compiled them, so its apply need not
 * compile. They stand for a fresh compile only where nothing the compile reads has changed: the
 * plan's state hash still holds (it covers every model file's text; the compile reads no other
 * file) and no model file substitutes an environment variable (`${…}`, which the hash cannot see;
 * such a project carries none). Approval checks them against a fresh compile (`checkCarriedFacts`),
 * and a promote never applies without an approval, so a plan file written by hand with other facts
 * is refused before anyone can apply it.
 */

/** The branch state hash (BLAKE3 over the config file's bytes and every model file's text), and whether a model file substitutes `${…}`. */
export const projectState = Effect.gen(function* () {
  const context = yield* ProjectContext
  const files = yield* readWorkingTree(context.modelsDir)
  const config = Option.match(context.config, { onNone: () => null, onSome: (c) => NodeFs.readFileSync(c.file, "utf8") })
  const hash = hashCanonical({ config, models: Object.fromEntries([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) })
  const substitutes = [...files.values()].some((f) => f.sidecar.includes("${") || (f.contract ?? "").includes("${"))
  return { hash, substitutes }
})

const Tags = Schema.Record({ key: Schema.String, value: Schema.String })
const Facts = Schema.Record({
  key: Schema.String,
  value: Schema.Struct({
    name: Schema.String,
    definition: Schema.Struct({ sidecar: Schema.Struct({ tags: Tags, classification: Tags }) }),
    contracted: Schema.Boolean,
    layer: Schema.optional(Schema.String),
    downstreams: Schema.Number,
    reachableDownstreams: Schema.optional(Schema.Number)
  })
})

/** The facts of `models` as the compiled project has them (a model it lacks is left out), as plain JSON data. */
export const factsRecord = (project: CompiledProject, models: ReadonlyArray<string>): Record<string, CompiledModelFacts> =>
  JSON.parse(JSON.stringify(Object.fromEntries(models.flatMap((m) => { const c = project.models.get(m); return c === undefined ? [] : [[m, factsOf(c)]] }))))

/** The facts a plan payload carries, when they name every one of `models`; otherwise undefined (apply then compiles). */
export const carriedFacts = (payload: Readonly<Record<string, unknown>>, models: ReadonlyArray<string>): ModelFactsSource | undefined => {
  const decoded = Schema.decodeUnknownEither(Facts)(payload["facts"])
  if (Either.isLeft(decoded)) return undefined
  const byModel = new Map<string, CompiledModelFacts>(
    Object.entries(decoded.right).map(([m, f]) => [m, { ...f, layer: f.layer, reachableDownstreams: f.reachableDownstreams }])
  )
  return models.every((m) => byModel.get(m)?.name === m) ? { models: byModel } : undefined
}

/**
 * At approval of a promote that carries facts: the project is still the planned one, and the facts
 * are what a compile of it gives. Else refused (`state-hash-mismatch`, `plan-integrity`): nothing is approved.
 */
export const checkCarriedFacts = (plan: GatedPlan, planPath: string) =>
  Effect.gen(function* () {
    if (plan.kind !== "promote" || plan.payload["facts"] === undefined) return
    const state = yield* projectState
    const planned = String(plan.payload["state_hash"] ?? "")
    if (state.hash !== planned) return yield* new StateHashMismatch({ planned, now: state.hash })
    const { modelsDir } = yield* ProjectContext
    const env = yield* Environment
    const project = yield* Effect.flatMap(PipelineCompiler, (c) => c.compile({ modelsDir, env }))
    const fresh = factsRecord(project, plan.payload.models)
    if (state.substitutes || canonicalJson(plan.payload["facts"]) !== canonicalJson(fresh)) {
      return yield* new PlanIntegrity({ planId: plan.plan_id, path: planPath, detail: "payload: its policy facts are not what the project compiles to" })
    }
  })

/**
 * The facts a view swap's gate may read instead of a compile, once checkViewSwap has passed: a
 * promote's own (its state hash was just checked); a rollback's, those of the applied promote it
 * undoes, while the project is still the one that promote was planned on. Otherwise undefined.
 */
export const viewSwapFacts = (plan: GatedPlan, state: { readonly substitutes: boolean } | undefined) =>
  Effect.gen(function* () {
    if (plan.kind === "promote") return state === undefined || state.substitutes ? undefined : carriedFacts(plan.payload, plan.payload.models)
    const undoes = plan.payload["undoes"]
    if (typeof undoes !== "string") return undefined
    const promotions = yield* Effect.flatMap(RunStore, (s) => s.environments.promotions).pipe(Effect.mapError((e) => new RunStoreFailed({ detail: e.message })))
    if (!promotions.some((p) => p.plan_id === undoes && p.kind === "promote")) return undefined
    const promote = yield* Effect.either(Effect.flatMap(PlanStore, (s) => s.read(undoes)))
    if (Either.isLeft(promote) || !isGatedPlan(promote.right) || promote.right.kind !== "promote") return undefined
    const now = yield* projectState
    return now.hash === promote.right.payload["state_hash"] && !now.substitutes ? carriedFacts(promote.right.payload, plan.payload.models) : undefined
  })

