import { Effect } from "effect"
import type { PolicyTestOutput } from "../schemas/policy-output"
import { PolicyScenariosFailed } from "../services/PolicyEngine/errors"
import { PolicyEngine } from "../services/PolicyEngine/PolicyEngine"
import type { ScenarioError } from "../services/PolicyEngine/scenarios"

/** `policy test`: every `[[policy.tests]]` scenario through the real evaluator, in declaration order. */
export const policyTest: Effect.Effect<PolicyTestOutput, ScenarioError, PolicyEngine> = Effect.map(
  Effect.flatMap(PolicyEngine, (engine) => engine.test),
  (report) => ({ command: "policy_test" as const, ...report })
)

/** After printing a `policy test` report: exit 1 when any scenario failed. */
export const failOnScenarioFailures = (output: PolicyTestOutput): Effect.Effect<void, PolicyScenariosFailed> =>
  output.failed > 0 ? Effect.fail(new PolicyScenariosFailed({ failed: output.failed, total: output.total })) : Effect.void
