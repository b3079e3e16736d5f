// `pcli policy check` and the MCP `policy_check` tool share this use case.
export { type PolicyCheckInput, policyCheck } from "../services/PolicyEngine/commands"
