import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { decodeConfig, loadPolicy, rejection } from "./support/config"

const rule = (body: string) => `[policy]\nversion = 1\n[[policy.rules]]\nprincipal = "agent"\ncapability = "apply"\neffect = "deny"\nscope = { any = true }\n[[policy.rules]]\n${body}\n`

describe("[policy] config", () => {
  it("decodes the reference example with defaults", () => {
    const policy = loadPolicy(`
[policy]
version = 1
[[policy.rules]]
principal = "agent"
capability = "schema_change.additive"
effect = "allow"
scope = { layer = "bronze", exclude_classifications = ["pii"], max_downstreams = 10 }
verify_after = ["row_count"]
autonomy_budget = { failures = 3, window = "7d" }
conditions = { token = "s3cret" }
[[policy.tests]]
name = "t"
principal = "agent"
capability = "apply"
expect = "deny"
`)
    expect(policy.default_agent_effect).toBe("require_review")
    expect(policy.freeze_marker_writes).toBe(false)
    expect(policy.rules[0]!.autonomy_budget).toEqual({ failures: 3, window: "7d" })
    expect(policy.tests[0]).toMatchObject({ model: "", tags: {}, classifications: [], contracted: false, downstreams: 0 })
    expect(policy.tests[0]!.reachable_downstreams).toBeUndefined()
  })

  it("accepts the selector shorthand as a one-predicate scope", () => {
    const cases: ReadonlyArray<readonly [string, object]> = [
      ["any", { any: true }],
      ["layer=gold", { layer: "gold" }],
      ["model=stg_*", { models: ["stg_*"] }],
      ["classification=pii", { classifications: ["pii"] }],
      ["tag=team=core", { tags: { team: "core" } }]
    ]
    for (const [text, scope] of cases) {
      const policy = loadPolicy(`[policy]\nversion = 1\n[[policy.rules]]\nprincipal = "agent"\ncapability = "apply"\neffect = "deny"\nscope = "${text}"\n`)
      expect(policy.rules[0]!.scope).toEqual(scope)
    }
  })

  const rejections: ReadonlyArray<readonly [string, string, RegExp]> = [
    ["version 2", `[policy]\nversion = 2\n`, /policy\.version.*must be 1/],
    ["missing version", `[policy]\n`, /policy\.version/],
    ["omitted scope", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"`), /policy\.rules\[1\]: rule has no scope/],
    ["empty scope", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = {}`), /policy\.rules\[1\]: rule has an empty scope/],
    ["empty lists are an empty scope", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { models = [] }`), /policy\.rules\[1\]: rule has an empty scope/],
    ["any mixed", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { any = true, layer = "x" }`), /policy\.rules\[1\]: scope `any` cannot be combined/],
    ["any = false", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { any = false }`), /policy\.rules\[1\]\.scope\.any/],
    ["zero failures", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { any = true }\nautonomy_budget = { failures = 0, window = "7d" }`), /policy\.rules\[1\]\.autonomy_budget\.failures/],
    ["unknown capability", rule(`principal = "agent"\ncapability = "aply"\neffect = "allow"\nscope = { any = true }`), /policy\.rules\[1\]\.capability: unknown capability "aply"/],
    ["unknown principal", rule(`principal = "robot"\ncapability = "apply"\neffect = "allow"\nscope = { any = true }`), /policy\.rules\[1\]\.principal: unknown principal/],
    ["unknown effect", rule(`principal = "agent"\ncapability = "apply"\neffect = "maybe"\nscope = { any = true }`), /policy\.rules\[1\]\.effect: unknown effect/],
    ["unknown rule key", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { any = true }\nverify = ["x"]`), /unknown key policy\.rules\[1\]\.verify/],
    ["unknown scope key", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { laye = "x" }`), /unknown key policy\.rules\[1\]\.scope\.laye/],
    ["unknown budget key", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { any = true }\nautonomy_budget = { failures = 1, window = "7d", x = 1 }`), /unknown key policy\.rules\[1\]\.autonomy_budget\.x/],
    ["bad shorthand", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = "gold"`), /policy\.rules\[1\]\.scope: scope "gold" is not a selector/],
    ["tag shorthand without value", rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = "tag=pii"`), /policy\.rules\[1\]\.scope: .*freeze-only/],
    ["unknown policy key", `[policy]\nversion = 1\ndefault_effect = "deny"\n`, /unknown key policy\.default_effect/],
    ["unknown test key", `[policy]\nversion = 1\n[[policy.tests]]\nname = "t"\nprincipal = "agent"\ncapability = "apply"\nexpect = "deny"\nexpected = "deny"\n`, /unknown key policy\.tests\[0\]\.expected/],
    ["unknown mask strategy", `[mask]\npii = "scramble"\n`, /mask\.pii: unknown mask strategy "scramble"/],
    ["unknown classifications key", `[classifications]\nallow = ["x"]\n`, /unknown key classifications\.allow/]
  ]
  for (const [name, text, pattern] of rejections) {
    it(`rejects ${name}`, () => expect(rejection(text)).toMatch(pattern))
  }

  for (const window of ["0d", "-1d", "7", "7w", "", "banana", "0h", "1.5d"]) {
    it(`rejects budget window ${JSON.stringify(window)} naming rules[i]`, () =>
      expect(
        rejection(rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { any = true }\nautonomy_budget = { failures = 1, window = "${window}" }`))
      ).toMatch(/policy\.rules\[1\]\.autonomy_budget\.window/))
  }

  for (const window of ["7d", "7D", "12h", "1H"]) {
    it(`accepts budget window ${window}`, () =>
      expect(loadPolicy(rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { any = true }\nautonomy_budget = { failures = 1, window = "${window}" }`)).rules[1]!.autonomy_budget!.window).toBe(window))
  }

  it("accepts a scope holding only max_downstreams (it matches everything)", () => {
    const policy = loadPolicy(rule(`principal = "agent"\ncapability = "apply"\neffect = "allow"\nscope = { max_downstreams = 3 }`))
    expect(policy.rules[1]!.scope).toEqual({ max_downstreams: 3 })
  })

  it("decodes [mask], [mask.<env>] and [classifications]", () => {
    const config = Effect.runSync(decodeConfig(`[mask]\npii = "hash"\n[mask.prod]\npii = "partial"\n[classifications]\nallow_unmasked = ["internal"]\n`))
    expect(config.mask).toEqual({ pii: "hash", prod: { pii: "partial" } })
    expect(config.classifications).toEqual({ allow_unmasked: ["internal"] })
    expect(rejection(`[mask.prod]\npii = "scramble"\n`)).toMatch(/mask\.prod/)
  })
})
