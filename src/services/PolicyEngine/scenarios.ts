import { Effect } from "effect"
import type { PolicyTestOutput, PolicyTestResult } from "../../schemas/policy-output"
import type { PolicyTestCase } from "../../schemas/policy"
import { toSubject } from "./attributes"
import { PolicyConfigMissing, PolicyNoScenarios, PolicyNotConfigured, ScenarioLayerInconsistent } from "./errors"
import { type CompiledPolicy, evaluate } from "./evaluate"
import type { PolicySettings } from "./PolicyEngine"

export type ScenarioReport = Omit<PolicyTestOutput, "command">
export type ScenarioError = PolicyConfigMissing | PolicyNotConfigured | PolicyNoScenarios | ScenarioLayerInconsistent

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

/** Every `[[policy.tests]]` scenario through the real evaluator, in declaration order. */
export const runScenarios = (settings: PolicySettings, compiled: CompiledPolicy): Effect.Effect<ScenarioReport, ScenarioError> =>
  Effect.gen(function* () {
    if (!settings.configPresent) return yield* new PolicyConfigMissing()
    const block = settings.policy
    if (block === undefined) return yield* new PolicyNotConfigured()
    if (block.tests.length === 0) return yield* new PolicyNoScenarios()
    const subjects = yield* Effect.forEach(block.tests, scenarioSubject)
    const results = block.tests.map((test, i): PolicyTestResult => {
      const verdict = evaluate(compiled, test.principal, test.capability, subjects[i]!)
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
    return { total: results.length, passed, failed: results.length - passed, results }
  })
