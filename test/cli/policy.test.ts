import { describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { makeProject, runCli } from "../support/cli"

const policyToml = `
[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { contracted = true }

[[policy.rules]]
principal = "agent"
capability = "schema_change.additive"
effect = "allow"
scope = "layer=staging"

[[policy.tests]]
name = "contracted apply is denied"
principal = "agent"
capability = "apply"
contracted = true
expect = "deny"
`

const stagingModel = {
  "models/stg_a.sql": "SELECT 1 AS id",
  "models/stg_a.toml": `name = "stg_a"\n[target]\ncatalog = "w"\nschema = "staging"\ntable = "stg_a"\n[tags]\nlayer = "staging"\n`
}

describe("pcli policy (binary)", () => {
  it("check explains the verdict from the compiled model's attributes, in text and JSON", async () => {
    const cwd = makeProject({ "pcli.toml": policyToml, ...stagingModel })
    const args = ["policy", "check", "--principal", "agent", "--capability", "schema_change.additive", "--model", "stg_a"]
    const text = await runCli(args, { cwd })
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/effect: allow/)
    const json = await runCli([...args, "--output", "json"], { cwd })
    const out = JSON.parse(json.stdout)
    expect(out).toMatchObject({ command: "policy_check", effect: "allow", matched_rule: 1 })
    expect(out.model_attributes.layer).toBe("staging")
  })

  it("check refuses a bad principal, a bad capability and an unknown model with exit 1", async () => {
    const cwd = makeProject({ "pcli.toml": policyToml, ...stagingModel })
    const base = ["policy", "check", "--model", "stg_a"]
    expect((await runCli([...base, "--principal", "robot", "--capability", "apply"], { cwd })).stderr).toMatch(/^error\[invalid-principal\]/)
    expect((await runCli([...base, "--principal", "agent", "--capability", "fly"], { cwd })).stderr).toMatch(/^error\[invalid-capability\]/)
    const unknown = await runCli(["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "nope"], { cwd })
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^error\[model-not-found\]/)
  })

  it("test runs the scenarios; a failing scenario exits non-zero", async () => {
    const ok = makeProject({ "pcli.toml": policyToml })
    const pass = await runCli(["policy", "test"], { cwd: ok })
    expect(pass.code).toBe(0)
    expect(pass.stdout).toContain("[PASS] contracted apply is denied")
    const failing = makeProject({ "pcli.toml": policyToml.replace('expect = "deny"', 'expect = "allow"') })
    const fail = await runCli(["policy", "test", "--output", "json"], { cwd: failing })
    expect(fail.code).toBe(1)
    const report = JSON.parse(fail.stdout)
    expect(report.command).toBe("policy_test")
    expect(fail.stderr).toMatch(/^error\[policy-test-failed\]/)
    const none = makeProject({ "pcli.toml": `[adapter.x]\ntype = "embedded"\n` })
    expect((await runCli(["policy", "test"], { cwd: none })).stderr).toMatch(/^error\[policy-not-configured\]/)
  })

  it("freeze → show → unfreeze through the real ledger; show is byte-stable; a rule error names rules[i]", async () => {
    const cwd = makeProject({ "pcli.toml": policyToml })
    const freeze = await runCli(["policy", "freeze", "--principal", "agent", "--scope", "layer=staging", "--reason", "incident 42", "--principal-id", "oncall"], { cwd })
    expect(freeze.code).toBe(0)
    const show1 = await runCli(["policy", "show", "--output", "json"], { cwd })
    const show2 = await runCli(["policy", "show", "--output", "json"], { cwd })
    expect(show1.stdout).toBe(show2.stdout)
    const shown = JSON.parse(show1.stdout)
    expect(shown.command).toBe("policy_show")
    expect(shown.freezes).toHaveLength(1)
    expect(JSON.stringify(shown.freezes[0])).toContain("layer=staging")
    const wrongScope = await runCli(["policy", "unfreeze", "--principal", "agent", "--scope", "layer=gold"], { cwd })
    expect(wrongScope.code).toBe(1)
    expect(wrongScope.stderr).toMatch(/^error\[no-matching-freeze\]/)
    const unfreeze = await runCli(["policy", "unfreeze", "--principal", "agent", "--scope", "layer=staging"], { cwd })
    expect(unfreeze.code).toBe(0)
    expect(JSON.parse((await runCli(["policy", "show", "--output", "json"], { cwd })).stdout).freezes).toHaveLength(0)
    // The config file is never rewritten.
    expect(readFileSync(join(cwd, "pcli.toml"), "utf8")).toBe(policyToml)
    const bad = makeProject({ "pcli.toml": policyToml.replace('scope = "layer=staging"', "scope = {}") })
    const err = await runCli(["policy", "show"], { cwd: bad })
    expect(err.code).toBe(1)
    expect(err.stderr).toMatch(/policy\.rules\[1\]/)
  })

  it("freeze without a [policy] block is recorded with a warning that nothing enforces it", async () => {
    const cwd = makeProject({ "pcli.toml": `[adapter.x]\ntype = "embedded"\n` })
    const r = await runCli(["policy", "freeze"], { cwd })
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^warning: /m)
    const info = JSON.parse((await runCli(["state", "info", "--output", "json"], { cwd })).stdout)
    expect(info.ledger_rows).toBe(2) // omitted principal → both, one row each
  })

  it("a newer state store is refused by a write command too", async () => {
    const cwd = makeProject({ "pcli.toml": policyToml })
    await runCli(["policy", "freeze", "--scope", "any"], { cwd })
    const { Effect } = await import("effect")
    const { setSchemaVersion } = await import("../support/stateStore")
    await Effect.runPromise(setSchemaVersion(join(cwd, "models", ".pcli-state.sqlite"), 999))
    const r = await runCli(["policy", "freeze", "--scope", "any"], { cwd })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error\[state-store-newer\]/)
  })
})
