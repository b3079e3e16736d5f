import fc from "fast-check"
import { CAPABILITIES, type PolicyBlock, type PolicyRule } from "../../../src/schemas/policy"
import type { LedgerRow } from "../../../src/services/Ledger/Ledger"
import type { MarkerObject } from "../../../src/services/PolicyEngine/dynamic"

export const T0 = Date.parse("2026-03-01T00:00:00.000Z")
export const principal = fc.constantFrom("human" as const, "agent" as const)
export const effect = fc.constantFrom("allow" as const, "require_review" as const, "deny" as const)
export const capability = fc.constantFrom(...CAPABILITIES)
const name = fc.constantFrom("fct_orders", "stg_events", "stg_users", "dim_customer", "")
const layer = fc.constantFrom("bronze", "silver", "gold")
const cls = fc.constantFrom("pii", "phi", "internal")

const scope = fc.oneof(
  fc.constant({ any: true as const }),
  fc
    .record(
      {
        models: fc.array(fc.constantFrom("stg_*", "fct_orders", "*", "dim_?ustomer"), { minLength: 1, maxLength: 2 }),
        tags: fc.dictionary(fc.constantFrom("team", "layer"), fc.constantFrom("core", "gold", "edge"), { minKeys: 1, maxKeys: 2 }),
        classifications: fc.array(cls, { minLength: 1, maxLength: 2 }),
        exclude_classifications: fc.array(cls, { minLength: 1, maxLength: 2 }),
        contracted: fc.boolean(),
        layer,
        max_downstreams: fc.nat({ max: 20 })
      },
      { requiredKeys: [] }
    )
    .filter((s) => Object.keys(s).length > 0)
)

const rule: fc.Arbitrary<PolicyRule> = fc.record(
  {
    principal,
    capability,
    effect,
    scope,
    verify_after: fc.constant(["row_count"]),
    autonomy_budget: fc.record({ failures: fc.integer({ min: 1, max: 3 }), window: fc.constantFrom("1d", "12h", "7d") })
  },
  { requiredKeys: ["principal", "capability", "effect", "scope", "verify_after"] }
)

export const policy: fc.Arbitrary<PolicyBlock> = fc.record({
  version: fc.constant(1),
  default_agent_effect: effect,
  rules: fc.array(rule, { maxLength: 8 }),
  freeze_marker_writes: fc.constant(false),
  tests: fc.constant([])
})

export const attrs = fc.record({
  name,
  tags: fc.dictionary(fc.constantFrom("team", "layer"), fc.constantFrom("core", "gold", "edge", "bronze")),
  classifications: fc.array(cls, { maxLength: 3 }),
  contracted: fc.boolean(),
  reachableDownstreams: fc.option(fc.nat({ max: 30 }), { nil: undefined })
})

export const ledgerRow: fc.Arbitrary<LedgerRow> = fc
  .record({
    kind: fc.constantFrom("freeze" as const, "unfreeze" as const, "verification" as const, "evaluation" as const),
    principal,
    scope: fc.constantFrom("any", "", "layer=gold", "model=stg_*", "classification=pii", "tag=team", "tag=team=core", "bogus"),
    offset: fc.integer({ min: 0, max: 10 * 86_400_000 }),
    plan: fc.constantFrom("p1", "p2", "p3", "p4"),
    rule: fc.nat({ max: 8 }),
    effect
  })
  .map((r) => ({
    decision_ref: `${r.offset}|${r.plan}`,
    kind: r.kind,
    timestamp: new Date(T0 + r.offset).toISOString(),
    principal: r.principal,
    principal_id: null,
    principal_id_source: null,
    principal_id_verified: false as const,
    target_principal: null,
    capability: "apply",
    model: r.kind === "freeze" || r.kind === "unfreeze" ? r.scope : "m",
    effect: r.effect,
    rule_id: r.kind === "evaluation" ? r.rule : null,
    plan_id: r.kind === "freeze" || r.kind === "unfreeze" ? `${r.kind}:${r.principal}:${r.offset}` : r.plan,
    reason: "generated"
  }))

export const marker: fc.Arbitrary<MarkerObject> = fc.record({
  direction: fc.constantFrom("freeze" as const, "unfreeze" as const),
  id: fc.uuid(),
  body: fc.oneof(
    fc.constant(undefined),
    fc.string(),
    fc
      .record({ principal, scope: fc.constantFrom("any", "layer=gold", "model=fct_*"), offset: fc.nat({ max: 1000 }) })
      .map((m) => JSON.stringify({ freeze_id: "x", principal: m.principal, scope: m.scope, reason: "r", created_at: new Date(T0 + m.offset).toISOString() }))
  )
})

