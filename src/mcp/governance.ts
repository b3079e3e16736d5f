import { Schema } from "effect"
import { auditList } from "../commands/audit"
import { policyCheck } from "../commands/policyCheck"
import { policyShow } from "../commands/policyShow"
import { reviewQueue, reviewStatus } from "../commands/reviewPlan"
import { AuditListOutput } from "../schemas/audit"
import { ReviewQueueOutput } from "../schemas/reviewQueueOutput"
import { ReviewStatusOutput } from "../schemas/reviewStatusOutput"
import { PolicyCheckOutput, PolicyShowOutput } from "../schemas/policy-output"
import { CapabilityArg, ModelName, NoArgs, PrincipalArg } from "./args"
import { defineTool } from "./tool"

/** Read tools over the policy plane, plans and the decision ledger. */
export const governanceTools = [
  defineTool({
    name: "policy_check",
    description: "Explain the effect policy resolves for a principal, capability and model, as the gate enforces it now (same JSON as pcli policy check)",
    readOnly: true,
    input: Schema.Struct({ principal: PrincipalArg, capability: CapabilityArg, model: ModelName }),
    output: PolicyCheckOutput,
    run: (args) => policyCheck(args)
  }),
  defineTool({
    name: "policy_show",
    description: "The policy in force: rules in file order, default agent effect, freezes and their sources (same JSON as pcli policy show)",
    readOnly: true,
    input: NoArgs,
    output: PolicyShowOutput,
    run: () => policyShow
  }),
  defineTool({
    name: "plan_status",
    description: "Whether a plan has a well-formed review marker, who approved it and when (same JSON as pcli review <id> --status)",
    readOnly: true,
    input: Schema.Struct({ plan_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(128)) }),
    output: ReviewStatusOutput,
    run: ({ plan_id }) => reviewStatus(plan_id)
  }),
  defineTool({
    name: "review_queue",
    description: "Plans waiting for a human's review, highest blast radius first (same JSON as pcli review --queue)",
    readOnly: true,
    input: NoArgs,
    output: ReviewQueueOutput,
    run: () => reviewQueue
  }),
  defineTool({
    name: "audit_query",
    description: "Recorded decisions, oldest first, filtered by since (YYYY-MM-DD, RFC 3339, 7d, 24h), actor id or product (same JSON as pcli audit)",
    readOnly: true,
    input: Schema.Struct({
      since: Schema.optional(Schema.String.pipe(Schema.maxLength(64))),
      actor: Schema.optional(Schema.String.pipe(Schema.maxLength(63))),
      product: Schema.optional(Schema.String.pipe(Schema.maxLength(128)))
    }),
    output: AuditListOutput,
    run: (args) => auditList(args)
  })
] as const
