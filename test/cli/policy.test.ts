import { describe, expect, it } from "vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { makeProject, runCli } from "../support/cli"
import { freePort } from "../support/ports"

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
    expect(r.stderr).toMatch(/^warning: freeze of agent and human on scope 'any' recorded but NOT enforced: pcli\.toml has no \[policy\] block$/m)
    expect(r.stderr).not.toContain("warning: warning:")
    const info = JSON.parse((await runCli(["state", "info", "--output", "json"], { cwd })).stdout)
    expect(info.ledger_rows).toBe(2) // omitted principal → both, one row each
  })

  it("escape codes in a freeze's scope and reason reach neither the warning line nor the text report raw", async () => {
    const cwd = makeProject({ "pcli.toml": `[adapter.x]\ntype = "embedded"\n` })
    const r = await runCli(["policy", "freeze", "--principal", "agent", "--scope", "tag=team\x1b[31mred", "--reason", "why\x1b]0;owned\x07 now"], { cwd })
    expect(r.code).toBe(0)
    for (const stream of [r.stdout, r.stderr]) {
      expect(stream).not.toMatch(/[\x1b\x07]/)
    }
    expect(r.stderr).toContain("\\u001b[31mred")
    expect(r.stdout).toContain("why\\u001b]0;owned\\u0007 now")
    const audit = await runCli(["audit", "--output", "json"], { cwd })
    // JSON keeps the value exactly (escaped by the encoder); only terminal text is made inert.
    expect(JSON.stringify(JSON.parse(audit.stdout))).toContain("why\\u001b]0;owned\\u0007 now")
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

  const ledgerRows = async (cwd: string) => JSON.parse((await runCli(["state", "info", "--output", "json"], { cwd })).stdout).ledger_rows as number

  it("freezing an already frozen scope says so and keeps the first reason; a 50,000-character scope is refused whole", async () => {
    const cwd = makeProject({ "pcli.toml": policyToml })
    const freeze = ["policy", "freeze", "--principal", "agent", "--scope", "layer=staging"]
    expect((await runCli([...freeze, "--reason", "one"], { cwd })).code).toBe(0)
    const again = await runCli([...freeze, "--reason", "two", "--output", "json"], { cwd })
    expect(again.code).toBe(0)
    expect(again.stderr).toMatch(/^warning: agent is already frozen on scope 'layer=staging' since \S+ \(freeze:agent:\S+\); the first reason stands: one$/m)
    const out = JSON.parse(again.stdout)
    expect([out.entries, out.already_frozen.map((f: { reason: string }) => f.reason)]).toEqual([[], ["one"]])
    expect(await ledgerRows(cwd)).toBe(1)
    const huge = await runCli(["policy", "freeze", "--scope", `model=${"x".repeat(50_000)}`, "--output", "json"], { cwd })
    expect(huge.code).toBe(1)
    expect(huge.stderr).toBe("error[selector-too-long]: scope selector is 50006 characters; the limit is 1024\n")
    expect(JSON.parse(huge.stdout).error.code).toBe("selector-too-long")
    expect(await ledgerRows(cwd)).toBe(1)
  })

  it("only a human unfreezes: an agent is refused with unfreeze-needs-human, the refusal is a ledger row, the freeze stays", async () => {
    const cwd = makeProject({ "pcli.toml": policyToml })
    expect((await runCli(["policy", "freeze", "--principal", "agent", "--scope", "any"], { cwd, env: { PCLI_PRINCIPAL: "agent" } })).code).toBe(0)
    const refused = await runCli(["policy", "unfreeze", "--principal", "agent", "--scope", "any", "--principal-id", "bot-1"], { cwd, env: { PCLI_PRINCIPAL: "agent" } })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^error\[unfreeze-needs-human\]: agent\(bot-1\) may not unfreeze agent on scope 'any': only a human may lift a freeze/)
    expect(await ledgerRows(cwd)).toBe(2)
    expect(JSON.parse((await runCli(["policy", "show", "--output", "json"], { cwd })).stdout).freezes).toHaveLength(1)
    expect((await runCli(["policy", "unfreeze", "--principal", "agent", "--scope", "any"], { cwd })).code).toBe(0)
    expect(JSON.parse((await runCli(["policy", "show", "--output", "json"], { cwd })).stdout).freezes).toHaveLength(0)
  })

  it("with freeze_marker_writes, a marker write that fails leaves no ledger row (file tier blocked, s3 unreachable)", async () => {
    const withMarkers = (url: string) => policyToml.replace("version = 1", "version = 1\nfreeze_marker_writes = true") + `\n[state]\nobject_store_url = "${url}"\n`
    const blocked = makeProject({})
    writeFileSync(join(blocked, "freeze"), "a file where the freeze/ directory should be")
    const fileCwd = makeProject({ "pcli.toml": withMarkers(pathToFileURL(`${blocked}/`).href) })
    const fileFreeze = await runCli(["policy", "freeze", "--scope", "any"], { cwd: fileCwd })
    expect([fileFreeze.code, fileFreeze.stderr.split("]")[0]]).toEqual([1, "error[freeze-marker-write-failed"])
    expect(await ledgerRows(fileCwd)).toBe(0)
    const s3Cwd = makeProject({ "pcli.toml": withMarkers("s3://pcli-markers/team/") })
    const env = {
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${await freePort()}`,
      AWS_S3_FORCE_PATH_STYLE: "true",
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test"
    }
    const s3Freeze = await runCli(["policy", "freeze", "--scope", "any"], { cwd: s3Cwd, env })
    expect(s3Freeze.code).toBe(1)
    expect(s3Freeze.stderr.trimEnd().split("\n")).toHaveLength(1)
    expect(s3Freeze.stderr).toMatch(/^error\[freeze-marker-write-failed\]: cannot write freeze marker to s3:\/\/pcli-markers\/team\/: (head|put) team\/freeze\/[0-9a-f-]+\.json: /)
    expect(await ledgerRows(s3Cwd)).toBe(0)
  })
})

describe("policy check reports the enforced effect (decisions item 31)", () => {
  it("a freeze tightens the effect and is named; the rules' own effect is kept beside it", async () => {
    const cwd = makeProject({ "pcli.toml": policyToml, ...stagingModel })
    const args = ["policy", "check", "--principal", "agent", "--capability", "schema_change.additive", "--model", "stg_a", "--output", "json"]
    const before = JSON.parse((await runCli(args, { cwd })).stdout)
    expect(before.effect).toBe("allow")
    expect(before.declared_effect).toBeUndefined()
    expect((await runCli(["policy", "freeze", "--principal", "agent", "--scope", "layer=staging"], { cwd })).code).toBe(0)
    const after = JSON.parse((await runCli(args, { cwd })).stdout)
    expect(after).toMatchObject({ effect: "deny", declared_effect: "allow", matched_rule: 1 })
    expect(after.reason).toMatch(/policy freeze active for agent on scope 'layer=staging'/)
  })
})
