import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { toSubject } from "../../src/services/PolicyEngine/attributes"
import { applyMask, resolveClassificationTag, resolvedStrategies } from "../../src/services/PolicyEngine/masking"
import { parseSelectorOption, scopeStringMatches } from "../../src/services/PolicyEngine/selector"
import { checkFreezeMarkerWrites } from "../../src/services/PolicyEngine/validate"
import { loadPolicy, model } from "./support/config"

const m = toSubject(model({ name: "stg_events", tags: { layer: "bronze", team: "core" }, classifications: ["pii"] }))

describe("freeze selector grammar", () => {
  const table: ReadonlyArray<readonly [string, boolean]> = [
    ["any", true],
    ["", true],
    ["layer=bronze", true],
    ["layer=gold", false],
    ["model=stg_*", true],
    ["model=stg_event?", true],
    ["model=stg", false],
    ["classification=pii", true],
    ["classification=phi", false],
    ["tag=team", true],
    ["tag=team=core", true],
    ["tag=team=edge", false],
    ["tag=owner", false],
    ["bogus", false],
    ["layer=", false]
  ]
  for (const [selector, matches] of table) {
    it(`${JSON.stringify(selector)} ${matches ? "matches" : "does not match"}`, () => expect(scopeStringMatches(selector, m)).toBe(matches))
  }
  it("validates the five forms", () => {
    for (const ok of ["any", "", "layer=x", "model=*", "classification=pii", "tag=k", "tag=k=v", "tag=k="]) expect(parseSelectorOption(ok)).toBeDefined()
    for (const bad of ["layer=", "model=", "classification=", "tag=", "tag==v", "owner=x", "gold"]) expect(parseSelectorOption(bad)).toBeUndefined()
  })
})

describe("classification masking", () => {
  const mask = { pii: "hash" as const, email: "redact" as const, prod: { pii: "partial" as const, phone: "none" as const } }
  const classifications = { allow_unmasked: ["internal"] }
  it("resolves env override, then default, then allow_unmasked, else W004", () => {
    expect(resolveClassificationTag("pii", "prod", mask, classifications)).toEqual({ tag: "pii", resolved: true, via: "env_override", env: "prod", strategy: "partial" })
    expect(resolveClassificationTag("pii", "dev", mask, classifications)).toEqual({ tag: "pii", resolved: true, via: "default", strategy: "hash" })
    expect(resolveClassificationTag("phone", "prod", mask, classifications)).toMatchObject({ via: "env_override", strategy: "none" })
    expect(resolveClassificationTag("internal", "prod", mask, classifications)).toEqual({ tag: "internal", resolved: true, via: "allow_unmasked" })
    expect(resolveClassificationTag("phone", "dev", mask, classifications)).toEqual({ tag: "phone", resolved: false, warning: "W004" })
    expect(resolveClassificationTag("prod", "dev", mask, undefined)).toMatchObject({ resolved: false })
    expect(resolvedStrategies(mask, "prod")).toEqual({ pii: "partial", email: "redact", phone: "none" })
  })
  it("applies strategies", () => {
    expect(applyMask("redact", "secret")).toBe("***")
    expect(applyMask("partial", "alice@example.com")).toBe("al***om")
    expect(applyMask("partial", "abcd")).toBe("***")
    expect(applyMask("none", "x")).toBe("x")
    expect(applyMask("hash", "x")).toMatch(/^[0-9a-f]{64}$/)
  })
})

describe("freeze_marker_writes", () => {
  it("needs an object tier", () => {
    const text = "[policy]\nversion = 1\nfreeze_marker_writes = true\n"
    const policy = loadPolicy(text)
    const error = Effect.runSync(Effect.flip(checkFreezeMarkerWrites(policy, undefined, text, "pcli.toml")))
    expect(error.message).toMatch(/^pcli\.toml:3: policy\.freeze_marker_writes: true needs an object tier/)
    Effect.runSync(checkFreezeMarkerWrites(policy, "file:///tmp/x/", text, "pcli.toml"))
  })
})

describe("globs", () => {
  it("agree with the regular-expression reading", async () => {
    const fc = (await import("fast-check")).default
    const { globMatcher, globToRegExp } = await import("../../src/services/PolicyEngine/glob")
    const alpha = fc.constantFrom("a", "b", "_", "*", "?", ".")
    fc.assert(
      fc.property(fc.array(alpha, { maxLength: 6 }).map((a) => a.join("")), fc.array(fc.constantFrom("a", "b", "_", "."), { maxLength: 8 }).map((a) => a.join("")), (glob, name) => {
        expect(globMatcher(glob)(name)).toBe(globToRegExp(glob).test(name))
      }),
      { numRuns: 3000 }
    )
  })
})
