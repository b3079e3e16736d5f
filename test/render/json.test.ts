import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { CompileOutput, RunOutput } from "../../src/schemas/pipeline"
import { PlaygroundOutput } from "../../src/schemas/playground"
import { PolicyCheckOutput, PolicyFreezeOutput, PolicyShowOutput, PolicyTestOutput } from "../../src/schemas/policy-output"
import { StateInfoOutput } from "../../src/schemas/state"
import { ValidateOutput } from "../../src/schemas/validate"
import { CliErrorDocument, encodeJson } from "../../src/render/json"
import { makeProject, runCli } from "../support/cli"

const project = () =>
  makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n\n[[policy.rules]]\nprincipal = "agent"\ncapability = "apply"\neffect = "deny"\nscope = "layer=gold"\n\n[[policy.tests]]\nname = "gold"\nprincipal = "agent"\ncapability = "apply"\nlayer = "gold"\nexpect = "deny"\n`,
    "models/a.sql": "SELECT 1 AS id",
    "models/a.toml": `name = "a"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "a"\n[tags]\nlayer = "gold"\n`
  })

/** Each command's `--output json` and the Schema its bytes must come from. */
const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, Schema.Schema.AnyNoContext]> = [
  ["compile", ["compile"], CompileOutput],
  ["run", ["run"], RunOutput],
  ["policy show", ["policy", "show"], PolicyShowOutput],
  ["policy check", ["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "a"], PolicyCheckOutput],
  ["policy test", ["policy", "test"], PolicyTestOutput],
  ["policy freeze", ["policy", "freeze", "--principal", "agent", "--scope", "layer=gold", "--reason", "r"], PolicyFreezeOutput],
  ["state info", ["state", "info"], StateInfoOutput],
  ["validate", ["validate"], ValidateOutput]
]

describe("every command's JSON is the one Schema-ordered encoder's bytes", () => {
  const cwd = project()
  for (const [name, args, schema] of cases) {
    it(name, async () => {
      const r = await runCli([...args, "--output", "json"], { cwd })
      expect(r.code, r.stderr).toBe(0)
      const decoded = Schema.decodeUnknownSync(schema)(JSON.parse(r.stdout))
      expect(r.stdout).toBe(Effect.runSync(encodeJson(schema, decoded)))
    })
  }

  it("playground", async () => {
    const r = await runCli(["playground", "demo", "--output", "json"], { cwd: makeProject() })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toBe(Effect.runSync(encodeJson(PlaygroundOutput, Schema.decodeUnknownSync(PlaygroundOutput)(JSON.parse(r.stdout)))))
  })

  it("an error is the CLI error document", async () => {
    const r = await runCli(["policy", "check", "--principal", "robot", "--capability", "apply", "--model", "a", "--output", "json"], { cwd })
    expect(r.code).toBe(1)
    const decoded = Schema.decodeUnknownSync(CliErrorDocument)(JSON.parse(r.stdout))
    expect(r.stdout).toBe(Effect.runSync(encodeJson(CliErrorDocument, decoded)))
    expect(decoded.error.code).toBe("invalid-principal")
  })
})
