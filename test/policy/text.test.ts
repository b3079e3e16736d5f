import { describe, expect, it } from "vitest"
import { checkText, freezeText, showText, testText } from "../../src/render/text/policy"

describe("text renderings", () => {
  it("show lists rules, freezes and sources", () => {
    const text = showText({
      command: "policy_show",
      configured: true,
      policy_version: 1,
      default_agent_effect: "require_review",
      rules: [
        { id: 0, principal: "agent", capability: "apply", effect: "deny", scope: { any: false, models: [], tags: {}, classifications: [], exclude_classifications: [], contracted: true }, autonomy_budget: { failures: 3, window: "7d" } }
      ],
      freezes: [{ source: "marker", scope: "any", reason: "unreadable" }],
      freeze_sources: { ledger: "read", markers: "read" }
    })
    expect(text).toBe(
      "policy: [policy] version 1\ndefault agent effect: require_review\nrules: 1\n  #0  agent  apply  deny  contracted=true  budget=3/7d\nfreezes in force: 1\n  [marker] agent+human on 'any' — unreadable\nfreeze sources: ledger read, markers read\n"
    )
  })
  it("check, test and freeze", () => {
    expect(
      checkText({ command: "policy_check", principal: "agent", capability: "apply", model: "m", effect: "deny", matched_rule: null, reason: "r", model_attributes: { tags: {}, classifications: [], contracted: false, downstreams: 0 } })
    ).toContain("blast_radius=(uncomputable)")
    expect(
      testText({ command: "policy_test", total: 1, passed: 0, failed: 1, results: [{ name: "n", passed: false, principal: "agent", capability: "apply", model: "m", expected: "allow", actual: "deny", matched_rule: 0, reason: "r" }] })
    ).toBe("policy test: 1 scenario(s)\n[FAIL] n\n    agent / apply / m: expected allow, got deny\n    matched: rule 0\n    reason: r\n0 passed, 1 failed\n")
    expect(freezeText({ command: "policy_freeze", lifted: false, scope: "any", recorded_at: "t", entries: [{ principal: "agent", effect: "deny", decision_ref: "t|p|any", plan_id: "p", reason: "why" }], notes: ["warning: x"] })).toBe(
      "agent frozen on 'any' (t|p|any) — why\nwarning: x\n"
    )
  })
})
