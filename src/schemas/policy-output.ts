import { Schema } from "effect"
import { Capability, PolicyEffect, Principal } from "./policy"

/** `policy check`: the effect as the gate enforces it now, and the attributes it read. */
export const PolicyCheckOutput = Schema.Struct({
  command: Schema.Literal("policy_check"),
  principal: Principal,
  capability: Capability,
  model: Schema.String,
  effect: PolicyEffect,
  matched_rule: Schema.NullOr(Schema.Int),
  reason: Schema.String,
  /** The rules' own effect, present when a freeze or an exhausted budget tightened it (the reason names which). */
  declared_effect: Schema.optional(PolicyEffect),
  model_attributes: Schema.Struct({
    tags: Schema.Record({ key: Schema.String, value: Schema.String }),
    classifications: Schema.Array(Schema.String),
    layer: Schema.optional(Schema.String),
    contracted: Schema.Boolean,
    downstreams: Schema.Int,
    reachable_downstreams: Schema.optional(Schema.Int)
  })
})
export type PolicyCheckOutput = typeof PolicyCheckOutput.Type

export const PolicyTestResult = Schema.Struct({
  name: Schema.String,
  passed: Schema.Boolean,
  principal: Principal,
  capability: Capability,
  model: Schema.String,
  expected: PolicyEffect,
  actual: PolicyEffect,
  matched_rule: Schema.optional(Schema.Int),
  reason: Schema.String
})
export type PolicyTestResult = typeof PolicyTestResult.Type

/** `policy test`: every scenario in declaration order. */
export const PolicyTestOutput = Schema.Struct({
  command: Schema.Literal("policy_test"),
  total: Schema.Int,
  passed: Schema.Int,
  failed: Schema.Int,
  results: Schema.Array(PolicyTestResult)
})
export type PolicyTestOutput = typeof PolicyTestOutput.Type

export const ShownScope = Schema.Struct({
  any: Schema.Boolean,
  models: Schema.Array(Schema.String),
  tags: Schema.Record({ key: Schema.String, value: Schema.String }),
  classifications: Schema.Array(Schema.String),
  exclude_classifications: Schema.Array(Schema.String),
  contracted: Schema.optional(Schema.Boolean),
  layer: Schema.optional(Schema.String),
  max_downstreams: Schema.optional(Schema.Int)
})

export const ShownRule = Schema.Struct({
  id: Schema.Int,
  principal: Principal,
  capability: Capability,
  effect: PolicyEffect,
  scope: ShownScope,
  verify_after: Schema.optional(Schema.Array(Schema.String)),
  autonomy_budget: Schema.optional(Schema.Struct({ failures: Schema.Int, window: Schema.String }))
})
export type ShownRule = typeof ShownRule.Type

export const ShownFreeze = Schema.Struct({
  source: Schema.Literal("ledger", "marker"),
  principal: Schema.optional(Principal),
  scope: Schema.String,
  reason: Schema.String,
  since: Schema.optional(Schema.String),
  plan_id: Schema.optional(Schema.String),
  freeze_id: Schema.optional(Schema.String),
  /** Who recorded a ledger freeze, as `class(id)`. */
  frozen_by: Schema.optional(Schema.String)
})
export type ShownFreeze = typeof ShownFreeze.Type

export const LedgerSourceMode = Schema.Literal("read", "absent", "local_mirror", "not_consulted")
export type LedgerSourceMode = typeof LedgerSourceMode.Type
export const MarkerSourceMode = Schema.Literal("read", "not_configured", "not_consulted")
export type MarkerSourceMode = typeof MarkerSourceMode.Type

/** `policy show` (and `GET /api/v1/policy`, byte for byte). */
export const PolicyShowOutput = Schema.Struct({
  command: Schema.Literal("policy_show"),
  configured: Schema.Boolean,
  policy_version: Schema.NullOr(Schema.Int),
  default_agent_effect: PolicyEffect,
  rules: Schema.Array(ShownRule),
  freezes: Schema.Array(ShownFreeze),
  freeze_sources: Schema.Struct({ ledger: LedgerSourceMode, markers: MarkerSourceMode }),
  /** The decision ledger's head `row_hash` (decisions.md 27), so a person can pin it. */
  ledger_head_hash: Schema.optional(Schema.String)
})
export type PolicyShowOutput = typeof PolicyShowOutput.Type

export const FreezeEntry = Schema.Struct({
  principal: Principal,
  effect: PolicyEffect,
  decision_ref: Schema.String,
  plan_id: Schema.String,
  reason: Schema.String
})
export type FreezeEntry = typeof FreezeEntry.Type

/**
 * `policy freeze` / `policy unfreeze`: one entry per principal recorded, agent first.
 * `already_frozen`: freezes of the same (principal, scope) already in force, kept with their first reason.
 */
export const PolicyFreezeOutput = Schema.Struct({
  command: Schema.Literal("policy_freeze", "policy_unfreeze"),
  lifted: Schema.Boolean,
  scope: Schema.String,
  recorded_at: Schema.String,
  entries: Schema.Array(FreezeEntry),
  already_frozen: Schema.optional(Schema.Array(ShownFreeze)),
  notes: Schema.optional(Schema.Array(Schema.String))
})
export type PolicyFreezeOutput = typeof PolicyFreezeOutput.Type
