import type { PolicyShowOutput, ShownRule } from "../../schemas/policy-output"
import type { PolicyBlock, PolicyRule } from "../../schemas/policy"
import type { FreezeView } from "./PolicyEngine"
import type { CompiledPolicy } from "./evaluate"

export type PolicyView = Omit<PolicyShowOutput, "command" | "ledger_head_hash">

const showRule = (rule: PolicyRule, id: number): ShownRule => {
  const scope = rule.scope ?? {}
  return {
    id,
    principal: rule.principal,
    capability: rule.capability,
    effect: rule.effect,
    scope: {
      any: scope.any === true,
      models: [...(scope.models ?? [])],
      tags: { ...(scope.tags ?? {}) },
      classifications: [...(scope.classifications ?? [])],
      exclude_classifications: [...(scope.exclude_classifications ?? [])],
      ...(scope.contracted === undefined ? {} : { contracted: scope.contracted }),
      ...(scope.layer === undefined ? {} : { layer: scope.layer }),
      ...(scope.max_downstreams === undefined ? {} : { max_downstreams: scope.max_downstreams })
    },
    ...(rule.verify_after.length === 0 ? {} : { verify_after: [...rule.verify_after] }),
    ...(rule.autonomy_budget === undefined
      ? {}
      : { autonomy_budget: { failures: rule.autonomy_budget.failures, window: rule.autonomy_budget.window } })
  }
}

/** Rules in file order, the default agent effect, and the freezes in force with their sources. */
export const policyView = (block: PolicyBlock | undefined, compiled: CompiledPolicy, view: FreezeView): PolicyView => ({
  configured: block !== undefined,
  policy_version: block === undefined ? null : block.version,
  default_agent_effect: compiled.defaultAgentEffect,
  rules: (block?.rules ?? []).map(showRule),
  freezes: view.freezes.map(({ decision_ref: _, ...f }) => f),
  freeze_sources: { ledger: view.sources.ledger, markers: view.sources.markers }
})
