import { Clock, Effect } from "effect"
import { randomUUID } from "node:crypto"
import type {
  FreezeEntry,
  PolicyCheckOutput,
  PolicyFreezeOutput,
  PolicyShowOutput,
  PolicyTestOutput,
  PolicyTestResult,
  ShownRule
} from "../../schemas/policy-output"
import { CAPABILITIES, type Capability, type PolicyRule, type PolicyTestCase, type Principal } from "../../schemas/policy"
import { Ledger, type LedgerUnavailable, type PrincipalClass, type PrincipalIdSource } from "../Ledger/Ledger"
import { ModelAttributesSource, type ModelAttributesUnavailable, type ModelNotFound, toSubject } from "./attributes"
import type { FreezeMarkerBody } from "./dynamic"
import {
  type FreezeSourceUnreadable,
  InvalidCapability,
  InvalidPrincipal,
  NoMatchingFreeze,
  PolicyConfigMissing,
  PolicyNoScenarios,
  PolicyNotConfigured,
  PolicyScenariosFailed,
  ScenarioLayerInconsistent
} from "./errors"
import { evaluate } from "./evaluate"
import type { MarkerWriteFailed } from "./markers"
import { PolicyEngine } from "./PolicyEngine"
import { type InvalidSelector, parseSelectorOption, InvalidSelector as InvalidSelectorError } from "./selector"

/** Who runs the command (resolved by the CLI from PCLI_PRINCIPAL / --principal-id / PCLI_PRINCIPAL_ID). */
export interface PrincipalContext {
  readonly class: PrincipalClass
  readonly id: string
  readonly idSource: PrincipalIdSource
}

export const parsePrincipal = (value: string): Effect.Effect<Principal, InvalidPrincipal> =>
  value === "human" || value === "agent" ? Effect.succeed(value) : Effect.fail(new InvalidPrincipal({ value }))

export const parseCapability = (value: string): Effect.Effect<Capability, InvalidCapability> =>
  (CAPABILITIES as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as Capability)
    : Effect.fail(new InvalidCapability({ value }))

const sortedRecord = (record: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))

export interface PolicyCheckInput {
  readonly principal: string
  readonly capability: string
  readonly model: string
  /** `--models`, default `models`. */
  readonly modelsDir: string
}

/** `policy check`: the static verdict (freezes and budgets can only tighten it at enforcement). */
export const policyCheck = (
  input: PolicyCheckInput
): Effect.Effect<
  PolicyCheckOutput,
  InvalidPrincipal | InvalidCapability | ModelNotFound | ModelAttributesUnavailable,
  PolicyEngine | ModelAttributesSource
> =>
  Effect.gen(function* () {
    const principal = yield* parsePrincipal(input.principal)
    const capability = yield* parseCapability(input.capability)
    const engine = yield* PolicyEngine
    const source = yield* ModelAttributesSource
    const attrs = yield* source.resolve(input.model, input.modelsDir)
    const subject = toSubject(attrs)
    const verdict = engine.check(principal, capability, attrs)
    return {
      command: "policy_check" as const,
      principal,
      capability,
      model: input.model,
      effect: verdict.effect,
      matched_rule: verdict.matched_rule,
      reason: verdict.reason,
      model_attributes: {
        tags: sortedRecord(subject.tags),
        classifications: [...subject.classifications].sort(),
        ...(subject.layer === undefined ? {} : { layer: subject.layer }),
        contracted: subject.contracted,
        downstreams: attrs.downstreams ?? 0,
        ...(subject.reachableDownstreams === undefined ? {} : { reachable_downstreams: subject.reachableDownstreams })
      }
    }
  })

/** Scenario attributes, reconciling `layer` with `tags.layer` as the live seam does. */
const scenarioSubject = (test: PolicyTestCase) => {
  const tagLayer = Object.prototype.hasOwnProperty.call(test.tags, "layer") ? test.tags["layer"] : undefined
  if (test.layer !== undefined && tagLayer !== undefined && test.layer !== tagLayer) {
    return Effect.fail(new ScenarioLayerInconsistent({ name: test.name, layer: test.layer, tagLayer }))
  }
  const layer = test.layer ?? tagLayer
  return Effect.succeed(
    toSubject({
      name: test.model,
      tags: layer === undefined ? test.tags : { ...test.tags, layer },
      classifications: test.classifications,
      contracted: test.contracted,
      layer,
      reachableDownstreams: test.reachable_downstreams
    })
  )
}

/** `policy test`: every `[[policy.tests]]` scenario through the real evaluator, in declaration order. */
export const policyTest: Effect.Effect<
  PolicyTestOutput,
  PolicyConfigMissing | PolicyNotConfigured | PolicyNoScenarios | ScenarioLayerInconsistent,
  PolicyEngine
> = Effect.gen(function* () {
  const engine = yield* PolicyEngine
  if (!engine.settings.configPresent) return yield* new PolicyConfigMissing()
  const block = engine.settings.policy
  if (block === undefined) return yield* new PolicyNotConfigured()
  if (block.tests.length === 0) return yield* new PolicyNoScenarios()
  const subjects = yield* Effect.forEach(block.tests, scenarioSubject)
  const results = block.tests.map((test, i): PolicyTestResult => {
    const verdict = evaluate(engine.compiled, test.principal, test.capability, subjects[i]!)
    return {
      name: test.name,
      passed: verdict.effect === test.expect,
      principal: test.principal,
      capability: test.capability,
      model: test.model,
      expected: test.expect,
      actual: verdict.effect,
      ...(verdict.matched_rule === null ? {} : { matched_rule: verdict.matched_rule }),
      reason: verdict.reason
    }
  })
  const passed = results.filter((r) => r.passed).length
  return { command: "policy_test" as const, total: results.length, passed, failed: results.length - passed, results }
})

/** After printing a `policy test` report: exit 1 when any scenario failed. */
export const failOnScenarioFailures = (output: PolicyTestOutput): Effect.Effect<void, PolicyScenariosFailed> =>
  output.failed > 0 ? Effect.fail(new PolicyScenariosFailed({ failed: output.failed, total: output.total })) : Effect.void

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

/** `policy show`: rules in file order, default agent effect, freezes in force, freeze sources. */
export const policyShow: Effect.Effect<PolicyShowOutput, FreezeSourceUnreadable, PolicyEngine> = Effect.gen(function* () {
  const engine = yield* PolicyEngine
  const block = engine.settings.policy
  const view = yield* engine.freezeView
  return {
    command: "policy_show" as const,
    configured: block !== undefined,
    policy_version: block === undefined ? null : block.version,
    default_agent_effect: engine.compiled.defaultAgentEffect,
    rules: (block?.rules ?? []).map(showRule),
    freezes: view.freezes.map((f) => ({ ...f })),
    freeze_sources: { ledger: view.sources.ledger, markers: view.sources.markers }
  }
})

export interface FreezeInput {
  /** `--principal`; omitted means both, agent first. */
  readonly principal?: string | undefined
  /** `--scope`; omitted means `any`. */
  readonly scope?: string | undefined
  /** `--reason`; omitted means a generated sentence. */
  readonly reason?: string | undefined
}

export type FreezeError =
  | InvalidPrincipal
  | InvalidSelector
  | NoMatchingFreeze
  | FreezeSourceUnreadable
  | LedgerUnavailable
  | MarkerWriteFailed

const record = (direction: "freeze" | "unfreeze", input: FreezeInput, actor: PrincipalContext) =>
  Effect.gen(function* () {
    const engine = yield* PolicyEngine
    const ledger = yield* Ledger
    const principals: ReadonlyArray<Principal> =
      input.principal === undefined ? ["agent", "human"] : [yield* parsePrincipal(input.principal)]
    const scope = input.scope ?? "any"
    if (parseSelectorOption(scope) === undefined) return yield* new InvalidSelectorError({ selector: scope })
    let targets = principals
    if (direction === "unfreeze") {
      const active = yield* engine.activeFreezes
      targets = principals.filter((p) => active.some((f) => f.principal === p && f.scope === scope))
      if (targets.length === 0) {
        return yield* new NoMatchingFreeze({ principal: input.principal ?? "agent or human", scope })
      }
    }
    const recordedAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    const writeMarkers = engine.settings.policy?.freeze_marker_writes === true ? engine.markerStore : undefined
    const entries: Array<FreezeEntry> = []
    for (const principal of targets) {
      const planId = `${direction}:${principal}:${recordedAt}`
      const reason =
        input.reason ??
        (direction === "freeze"
          ? `${principal} frozen on scope '${scope}' by ${actor.class}(${actor.id})`
          : `freeze of ${principal} on scope '${scope}' lifted by ${actor.class}(${actor.id})`)
      const effect = direction === "freeze" ? ("deny" as const) : ("allow" as const)
      const row = yield* ledger.append({
        kind: direction,
        principal,
        principal_id: actor.id,
        principal_id_source: actor.idSource,
        capability: "apply",
        model: scope,
        effect,
        rule_id: null,
        plan_id: planId,
        reason
      })
      if (writeMarkers !== undefined) {
        const id = randomUUID()
        const body: FreezeMarkerBody = { freeze_id: id, principal, scope, reason, created_at: recordedAt, plan_id: planId }
        yield* writeMarkers.write(direction, id, `${JSON.stringify(body, null, 2)}\n`)
      }
      entries.push({ principal, effect, decision_ref: row.decision_ref, plan_id: planId, reason })
    }
    const notes = engine.compiled.configured
      ? []
      : [
          `warning: ${direction} of ${targets.join(" and ")} on scope '${scope}' recorded but NOT enforced: pcli.toml has no [policy] block`
        ]
    const output: PolicyFreezeOutput = {
      command: direction === "freeze" ? "policy_freeze" : "policy_unfreeze",
      lifted: direction === "unfreeze",
      scope,
      recorded_at: recordedAt,
      entries,
      ...(notes.length === 0 ? {} : { notes })
    }
    return output
  })

/** `policy freeze`: always allowed; one ledger row per principal (agent first); no config file is rewritten. */
export const policyFreeze = (
  input: FreezeInput,
  actor: PrincipalContext
): Effect.Effect<PolicyFreezeOutput, FreezeError, PolicyEngine | Ledger> => record("freeze", input, actor)

/** `policy unfreeze`: lifts only freezes whose (principal, scope string) match exactly. */
export const policyUnfreeze = (
  input: FreezeInput,
  actor: PrincipalContext
): Effect.Effect<PolicyFreezeOutput, FreezeError, PolicyEngine | Ledger> => record("unfreeze", input, actor)
