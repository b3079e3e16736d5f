import { Effect } from "effect"
import type { CompiledProject } from "../Project/compile"
import { Ledger, type LedgerUnavailable } from "../Ledger/Ledger"
import { PolicyEngine } from "../PolicyEngine/PolicyEngine"
import { type BuildState, RunStore, type RunStoreFailed } from "../Runner/RunStore"
import { ModelsNotFound } from "../Runner/selection"
import { Principal } from "../Principal/Principal"
import { RunNeedsPlan } from "./errors"
import { attributesOf } from "../PolicyEngine/attributes"
import { evaluateItems, judgedAsBuilt } from "./gate"
import { type BuiltContext, builtContextOf } from "./scopeChange"
import { decidedBy } from "../PolicyEngine/evaluate"
import { appendRows, evaluationRow, refusalReason, refusalRow } from "./ledgerRows"
import { Environment } from "../Environment/Environment"
import { filesOfDefinition } from "../Project/modelFiles"
import type { ModelFiles } from "../../schemas/plans"
import { diffRevisions } from "./diff"
import { fingerprintOf } from "./revisions"
import type { GateItem } from "./gate"

/**
 * decisions.md item 30: an agent's `pcli run` is a mutating action. Each selected model is
 * evaluated at `apply` through the enforcement gate (freezes and budgets included), one ledger
 * row each; any deny or require_review refuses the whole run before any work. Humans pass.
 * Each model is judged as last built too; a scope-relevant attribute change is judged at
 * `schema_change.breaking` as well as `apply` (decisions.md 33). Returns the builds it read.
 */
export const gateAgentRun = (
  project: CompiledProject,
  selected: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, BuildState> | undefined, RunNeedsPlan | ModelsNotFound | LedgerUnavailable | RunStoreFailed, PolicyEngine | Ledger | Principal | RunStore | Environment> =>
  Effect.gen(function* () {
    const actor = yield* Principal
    if (actor.class !== "agent") return undefined
    const engine = yield* PolicyEngine
    const unknown = [...new Set(selected)].filter((n) => !project.models.has(n))
    if (unknown.length > 0) return yield* refuseAgentRun(new ModelsNotFound({ models: unknown }))
    if (!engine.configured) return undefined
    // One read of the builds: the gate judges each model as built too, and the run reuses them.
    const states = yield* (yield* RunStore).buildStates
    const built: BuiltContext = builtContextOf(states, engine.scopeReads)
    const names = selected.length > 0 ? selected : [...project.models.keys()]
    const asBuilt = names.map((model) => {
      const m = project.models.get(model)!
      return judgedAsBuilt({ model, capability: "apply" as const, attributes: attributesOf(m) }, m, built, true)
    })
    const items = yield* withBreakingSinceBuild(project, asBuilt, built)
    const evaluated = yield* evaluateItems("agent", items)
    if (evaluated === undefined) return states
    const blocked = evaluated.filter((e) => e.verdict.effect !== "allow")
    const refusal = blocked.length === 0 ? undefined : new RunNeedsPlan({ blocked: blocked.map((e) => ({ model: e.item.model, effect: e.verdict.effect, rule: e.verdict.matched_rule, ...(e.verdict.freeze === undefined ? {} : { decidedBy: decidedBy(e.verdict) }) })) })
    const ledger = yield* Ledger
    yield* appendRows(
      ledger,
      evaluated.map((e) =>
        evaluationRow({
          actor,
          principal: "agent",
          model: e.item.model,
          capability: e.item.capability,
          effect: e.verdict.effect,
          ruleId: e.verdict.static.matched_rule,
          planId: null,
          reason: refusal === undefined ? e.verdict.reason : `${refusalReason(refusal)} — ${e.verdict.reason}`
        })
      )
    )
    if (refusal !== undefined) return yield* refusal
    return states
  })

/**
 * Issue 32 item 7: an agent's run refused before any model is evaluated (an unknown model or
 * target) leaves one row when policy governs the project; a human's run is not gated.
 */
export const refuseAgentRun = <E extends { readonly code: string; readonly message: string }>(error: E): Effect.Effect<never, E | LedgerUnavailable, PolicyEngine | Ledger | Principal> =>
  Effect.gen(function* () {
    const actor = yield* Principal
    if (actor.class === "agent" && (yield* PolicyEngine).configured) {
      yield* (yield* Ledger).append(refusalRow({ actor, principal: "agent", capability: "apply", planId: null, error }))
    }
    return yield* Effect.fail(error)
  })

/**
 * decisions.md 33 on the run path: a model whose files differ from its last build by a breaking
 * change (a column removed, a type changed) is judged at `schema_change.breaking` too, as its plan
 * would be, so an agent's `run` cannot ship what its `plan` would send to review. A change that
 * cannot be classified (the SQL does not parse here) is judged breaking.
 */
const withBreakingSinceBuild = (project: CompiledProject, items: ReadonlyArray<GateItem>, built: BuiltContext) =>
  Effect.gen(function* () {
    const working = new Map<string, ModelFiles>()
    for (const item of items) {
      const before = built.files.get(item.model)
      const now = filesOfDefinition(project.models.get(item.model)!.definition)
      if (item.capability === "apply" && before !== undefined && now !== undefined && fingerprintOf(now) !== fingerprintOf(before)) working.set(item.model, now)
    }
    if (working.size === 0) return items
    const changes = yield* diffRevisions(built.files, working, working.keys(), yield* Environment, built).pipe(Effect.option)
    const breaking = new Map<string, ReadonlyArray<string>>()
    if (changes._tag === "None") for (const model of working.keys()) breaking.set(model, ["a change that cannot be classified"])
    else for (const c of changes.value) if (c.change_class === "schema_change.breaking") breaking.set(c.model, c.findings.map((f) => [f.kind, f.column].filter(Boolean).join(" ")))
    return items.map((item): GateItem => {
      const found = breaking.get(item.model)
      return found === undefined
        ? item
        : { ...item, capability: "schema_change.breaking", alsoAt: "apply", changed: [...new Set([...(item.changed ?? []), ...found.map((f) => `${f} since the last build`)])] }
    })
  })
