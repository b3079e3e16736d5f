import { Effect } from "effect"
import type { CompiledProject } from "../Project/compile"
import { Ledger, type LedgerUnavailable } from "../Ledger/Ledger"
import { PolicyEngine } from "../PolicyEngine/PolicyEngine"
import { ModelsNotFound } from "../Runner/selection"
import { Principal } from "../Principal/Principal"
import { RunNeedsPlan } from "./errors"
import { attributesOf } from "../PolicyEngine/attributes"
import { evaluateItems } from "./gate"
import { decidedBy } from "../PolicyEngine/evaluate"
import { appendRows, evaluationRow, refusalReason, refusalRow } from "./ledgerRows"

/**
 * decisions.md item 30: an agent's `pcli run` is a mutating action. Each selected model is
 * evaluated at `apply` through the enforcement gate (freezes and budgets included), one ledger
 * row each; any deny or require_review refuses the whole run before any work. Humans pass.
 */
export const gateAgentRun = (
  project: CompiledProject,
  selected: ReadonlyArray<string>
): Effect.Effect<void, RunNeedsPlan | ModelsNotFound | LedgerUnavailable, PolicyEngine | Ledger | Principal> =>
  Effect.gen(function* () {
    const actor = yield* Principal
    if (actor.class !== "agent") return
    const unknown = [...new Set(selected)].filter((n) => !project.models.has(n))
    if (unknown.length > 0) return yield* refuseAgentRun(new ModelsNotFound({ models: unknown }))
    const names = selected.length > 0 ? selected : [...project.models.keys()]
    const items = names.map((model) => ({ model, capability: "apply" as const, attributes: attributesOf(project.models.get(model)!) }))
    const evaluated = yield* evaluateItems("agent", items)
    if (evaluated === undefined) return
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
          capability: "apply",
          effect: e.verdict.effect,
          ruleId: e.verdict.static.matched_rule,
          planId: null,
          reason: refusal === undefined ? e.verdict.reason : `${refusalReason(refusal)} — ${e.verdict.reason}`
        })
      )
    )
    if (refusal !== undefined) return yield* refusal
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
