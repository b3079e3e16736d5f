import { Effect, Either, Schema } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import * as Toml from "smol-toml"
import { describe, expect, it } from "vitest"
import { ClassificationsBlock, MaskBlock, PolicyBlock } from "../../src/schemas/policy"
import { maskingWarnings } from "../../src/services/PolicyEngine/masking"
import { checkPosture, type PolicySource, verifyProduct } from "../../src/services/Products/verify"
import { parseSpec } from "../../src/services/Products/spec"
import { makeProject } from "../support/cli"
import { json, pcli, policyFor, productProject, project, run, snapshotTree, specText } from "./support"

const spec = Either.getOrThrow(parseSpec(new TextEncoder().encode(specText())))
const MODEL = "orders_weekly_mart"

/** What verify sees of a pcli.toml text (decoded by the real config schemas). */
const source = (text: string): PolicySource => {
  const data = Toml.parse(text) as Record<string, unknown>
  return {
    kind: "loaded",
    policy: data["policy"] === undefined ? undefined : Schema.decodeUnknownSync(PolicyBlock)(data["policy"]),
    mask: data["mask"] === undefined ? undefined : Schema.decodeUnknownSync(MaskBlock)(data["mask"]),
    classifications: data["classifications"] === undefined ? undefined : Schema.decodeUnknownSync(ClassificationsBlock)(data["classifications"])
  }
}

const rule = (capability: string, effect: string, scope: string, extra = "") =>
  `\n[[policy.rules]]\nprincipal = "agent"\ncapability = "${capability}"\neffect = "${effect}"\nscope = ${scope}\n${extra}`
const policy = (rules: string, defaultEffect = "require_review") => `[policy]\nversion = 1\ndefault_agent_effect = "${defaultEffect}"\n${rules}`
const exactPropose = rule("propose", "allow", `{ models = ["${MODEL}"] }`)
const exactApply = rule("apply", "require_review", `{ models = ["${MODEL}"] }`)

describe("product verify: trust posture (check 1)", () => {
  const posture = (text: string) => checkPosture(spec, source(text))

  it("asks for input, with the paste block and no effects, when the config or its policy is absent or broken", () => {
    for (const s of [{ kind: "missing" }, { kind: "invalid", detail: "pcli.toml:3: policy.version: must be 1" }] as const) {
      const c = checkPosture(spec, s)
      expect([c.status, c.paste, c.effects]).toEqual(["needs_input", true, undefined])
    }
    const none = posture("[mask]\ninternal = \"hash\"\n")
    expect([none.status, none.reason, none.effects]).toEqual(["needs_input", "pcli.toml has no [policy] block", undefined])
  })

  it("passes the exact-scope posture and reports both effects", () => {
    const c = posture(policy(exactPropose + exactApply))
    expect(c).toEqual({ status: "pass", reason: "", effects: { propose: "allow", apply: "require_review" } })
    expect(posture(policy(exactPropose + rule("apply", "deny", "{ any = true }"))).status).toBe("pass")
  })

  it("needs input when the default is not require_review, propose is not allowed, or allowed too broadly", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [policy(exactPropose + exactApply, "deny"), "default_agent_effect is deny"],
      [policy(exactApply), "resolves require_review"],
      [policy(rule("propose", "allow", '{ models = ["orders_*"] }') + exactApply), "not exactly"],
      [policy(rule("propose", "allow", "{ any = true }") + exactApply), "not exactly"],
      [policy(rule("propose", "allow", `{ models = ["${MODEL}"], tags = { product = "orders_weekly" } }`) + exactApply), "not exactly"],
      [policy(rule("propose", "allow", `{ models = ["${MODEL}"] }`, 'autonomy_budget = { failures = 3, window = "7d" }') + exactApply), "autonomy_budget"],
      // Reachability is unknown after lowering, so a ceiling fails closed to review.
      [policy(rule("propose", "allow", `{ models = ["${MODEL}"], max_downstreams = 5 }`) + exactApply), "resolves require_review"]
    ]
    for (const [text, reason] of cases) {
      const c = posture(text)
      expect([c.status, c.paste, c.reason]).toEqual(["needs_input", true, expect.stringContaining(reason)])
      expect(c.effects).toBeDefined()
    }
  })

  it("fails when agent apply resolves allow; an any-scope apply allow is outranked by the scoped review", () => {
    const c = posture(policy(exactPropose + rule("apply", "allow", `{ models = ["${MODEL}"] }`)))
    expect([c.status, c.paste, c.effects?.apply]).toEqual(["fail", undefined, "allow"])
    expect(posture(policy(exactPropose + rule("apply", "allow", "{ any = true }"))).status).toBe("fail")
    expect(posture(policy(exactPropose + rule("apply", "allow", "{ any = true }") + exactApply)).status).toBe("pass")
  })
})

describe("product verify (service)", () => {
  const verify = (root: string, text: string) => run(Effect.map(verifyProduct(project(root), "orders_weekly", source(text)), (r) => r.output))

  it("fails on a classification tag with no masking resolution; [mask.<env>] or allow_unmasked resolve it", async () => {
    const root = productProject()
    const base = policy(exactPropose + exactApply)
    const out = Either.getOrThrow(await verify(root, base))
    expect([out.status, out.reason]).toEqual(["fail", expect.stringMatching(/^\[classification-unresolved\] tag\(s\) 'internal'/)])
    expect(Either.getOrThrow(await verify(root, `${base}\n[mask.prod]\ninternal = "redact"\n`)).status).toBe("pass")
    expect(Either.getOrThrow(await verify(root, `${base}\n[classifications]\nallow_unmasked = ["internal"]\n`)).status).toBe("pass")
  })

  it("fails on identity collisions across spec files and committed manifests", async () => {
    const cfg = policyFor(MODEL)
    const outcome = async (files: Record<string, string>) => Either.getOrThrow(await verify(productProject(files), cfg))
    expect((await outcome({})).status).toBe("pass")
    expect((await outcome({ "products/other.toml": specText({ name: "other" }) })).reason).toMatch(/^\[duplicate-output-model\] products\/other\.toml/)
    expect((await outcome({ "products/copy.toml": specText({ model: "another_model" }) })).reason).toMatch(/^\[duplicate-product-name\] products\/copy\.toml/)
    const manifest = (model: string, specPath: string) =>
      JSON.stringify({ artifacts: {}, fields: {}, output_model: model, phase: "lowered_contract", product_id: "product:x", spec_digest: `sha256:${"0".repeat(64)}`, spec_path: specPath })
    expect((await outcome({ ".pcli/fulfillment/old/lowering-manifest.json": manifest(MODEL, "products/old.toml") })).reason).toMatch(/^\[duplicate-output-model\] \.pcli\/fulfillment\/old/)
    expect((await outcome({ ".pcli/fulfillment/old/lowering-manifest.json": "{ not json" })).reason).toMatch(/^\[manifest-unreadable\]/)
    expect((await outcome({ ".pcli/fulfillment/orders_weekly/lowering-manifest.json": manifest(MODEL, "products/elsewhere.toml") })).reason).toMatch(/^\[duplicate-product-name\]/)
  })

  it("W004: one warning per (model, column, tag) without masking resolution", () => {
    const warnings = maskingWarnings(
      [{ model: "customers", classification: { email: "pii", region: "internal", ssn: "pii" } }],
      { internal: "none", prod: { secret: "redact" } },
      { allow_unmasked: ["public"] }
    )
    expect(warnings.map((w) => [w.code, w.model, w.column, w.tag])).toEqual([
      ["W004", "customers", "email", "pii"],
      ["W004", "customers", "ssn", "pii"]
    ])
    expect(warnings[0]!.suggestion).toContain("allow_unmasked")
  })
})

describe("pcli product verify (binary)", () => {
  it("exits 1 with a paste-ready block that, pasted, makes verify pass (exit 0); it writes nothing", async () => {
    const root = makeProject({ "products/orders_weekly.toml": specText() })
    const before = snapshotTree(root)
    const r = await pcli(root, ["product", "verify", "orders_weekly", "--output", "json"])
    expect(r.code).toBe(1)
    const out = json(r)
    expect(Object.keys(out)).toEqual(["command", "product_id", "spec_digest", "output_model", "status", "reason", "paste_block"])
    expect([out["command"], out["status"]]).toEqual(["product_verify", "needs_input"])
    expect(snapshotTree(root)).toEqual(before)
    writeFileSync(join(root, "pcli.toml"), `${out["paste_block"] as string}\n[mask]\ninternal = "hash"\n`)
    const ok = await pcli(root, ["product", "verify", "orders_weekly"])
    expect([ok.code, ok.stdout]).toEqual([0, expect.stringContaining("verify: PASS")])
  })

  it("exits 2 on a failing check and on a spec the parser refuses (JSON still printed)", async () => {
    const root = productProject({ "pcli.toml": policyFor(MODEL).replace('capability = "apply"\neffect = "require_review"', 'capability = "apply"\neffect = "allow"') })
    const fail = await pcli(root, ["product", "verify", "orders_weekly", "--output", "json"])
    expect([fail.code, json(fail)["status"], json(fail)["apply_effect"]]).toEqual([2, "fail", "allow"])
    const bad = productProject({ "products/orders_weekly.toml": specText().replace('"Int64"', '"BIGINT"') })
    const rejected = await pcli(bad, ["product", "verify", "orders_weekly", "--output", "json"])
    expect(rejected.code).toBe(2)
    expect(json(rejected)).toEqual({
      command: "product_verify",
      product_id: "product:orders_weekly",
      spec_digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      status: "fail",
      reason: expect.stringMatching(/^\[type-not-rocky\] column 'orders'.*did you mean Int64\?/)
    })
  })

  it("a name that differs from the file stem fails; a missing spec is an error (exit 1)", async () => {
    const root = productProject({ "products/renamed.toml": specText({ model: "renamed_model" }) })
    const mismatch = await pcli(root, ["product", "verify", "renamed", "--output", "json"])
    expect([mismatch.code, json(mismatch)["reason"]]).toEqual([2, expect.stringMatching(/^\[product-name-mismatch\]/)])
    const missing = await pcli(root, ["product", "verify", "nope", "--output", "json"])
    expect([missing.code, json(missing)]).toEqual([1, { error: { code: "spec-file-missing", message: expect.stringContaining("products/nope.toml") } }])
    const traversal = await pcli(root, ["product", "verify", "../x"])
    expect([traversal.code, traversal.stderr]).toEqual([1, expect.stringContaining("product-name-invalid")])
  })
})
