import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import { toSubject } from "../../src/services/PolicyEngine/attributes"
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
