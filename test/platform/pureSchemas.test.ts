// The build marks a top-level `const X = Schema.…` pure (scripts/deepImports.mjs): a bundle leaves out the schemas it
// never reaches instead of building them at every start. Checked on a fixture and on pcli's own output schemas.
import { build, type PluginBuild, transformSync } from "esbuild"
import { Schema } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
// @ts-expect-error: the build's plugin is plain JavaScript
import { deepImports, pureSchemaConsts, rewriteBarrelImports } from "../../scripts/deepImports.mjs"
import { ReviewStatusOutput } from "../../src/schemas/reviewStatusOutput"

const wrap = pureSchemaConsts as (source: string, file?: string) => string

/** Bundles `entry` (a module text resolved from the repository root) as the light entries are bundled, with the plugin. */
const bundle = async (entry: string, fixtures = false) => {
  const out = await build({
    stdin: { contents: entry, resolveDir: resolve("."), loader: "ts" },
    bundle: true,
    platform: "node",
    format: "cjs",
    write: false,
    // The plugin transforms src/ only: the fixture goes through the same two steps.
    plugins: [
      ...(fixtures ? [{ name: "fixture", setup: (b: PluginBuild) => b.onLoad({ filter: /fixtures[\\/]pureSchemas[\\/].*\.ts$/ }, (a) => ({ contents: wrap((rewriteBarrelImports as (s: string) => string)(readFileSync(a.path, "utf8"))), loader: "ts" })) }] : []),
      deepImports
    ],
    logLevel: "silent"
  })
  return out.outputFiles[0]!.text
}

describe("pure schema constants", () => {
  it("wraps only top-level const initializers that start with Schema., leaving the text otherwise as it was", () => {
    const source = [
      `import { Schema } from "effect"`,
      `export const A = Schema.Struct({ a: Schema.String }).annotations({ identifier: "A" })`,
      `const b = register(Schema.String), c = Schema.Literal("x")`,
      `let d = Schema.Number`,
      `export function f() { const e = Schema.decodeUnknownSync(A); return e }`
    ].join("\n")
    const out = wrap(source)
    expect(out.split("\n")).toEqual([
      `import { Schema } from "effect"`,
      `export const A = /* @__PURE__ */ (() => (Schema.Struct({ a: Schema.String }).annotations({ identifier: "A" })))()`,
      `const b = register(Schema.String), c = /* @__PURE__ */ (() => (Schema.Literal("x")))()`,
      `let d = Schema.Number`,
      `export function f() { const e = Schema.decodeUnknownSync(A); return e }`
    ])
  })

  it("drops a schema no code reaches and keeps the reached ones and every other statement", async () => {
    const dir = resolve("test/platform/fixtures/pureSchemas")
    const text = await bundle(`import { used, sideEffects } from "${join(dir, "schemas.ts")}"\nconsole.log(JSON.stringify([used.ast._tag, sideEffects]))`, true)
    expect(text).not.toContain("never-reached")
    expect(text).toContain("reached-by-used")
    expect(text).toContain("kept-side-effect")
    const logged: Array<unknown> = []
    new Function("require", "console", text)(require, { log: (s: string) => logged.push(JSON.parse(s)) })
    expect(logged).toEqual([["TypeLiteral", ["kept-side-effect"]]])
  })

  it("keeps a real output schema whole: the bundled ReviewStatusOutput encodes as the source one does, its siblings left out", async () => {
    const text = await bundle(
      `import { Schema } from "effect"; import { ReviewStatusOutput } from "./src/schemas/reviewStatusOutput"\nmodule.exports = (v: unknown) => JSON.stringify(Schema.encodeUnknownSync(ReviewStatusOutput)(v))`
    )
    // PlanOutput's own description: in plans.ts, never reached from ReviewStatusOutput.
    const planOutput = readFileSync("src/schemas/plans.ts", "utf8")
    expect(planOutput).toContain("export const PlanOutput")
    expect(text).not.toMatch(/\bPlanOutput =/)
    const mod = { exports: undefined as unknown as (v: unknown) => string }
    new Function("module", "require", text)(mod, require)
    const value = {
      command: "review_status",
      plan_id: "p1",
      kind: "run",
      reviewed: true,
      marker_path: "/x/p1.reviewed.json",
      reviewed_at: "2026-01-01T00:00:00.000Z",
      approver: { email: "a@b.c", host: "h", source: "local" },
      breaking_change_count: 2,
      product_binding: null
    }
    expect(mod.exports(value)).toBe(JSON.stringify(Schema.encodeUnknownSync(ReviewStatusOutput)(value)))
  })

  it("wraps every top-level Schema constant of src/ and leaves each file valid TypeScript", () => {
    const files = readdirSync("src", { recursive: true }).map(String).filter((f) => f.endsWith(".ts"))
    let wrapped = 0
    for (const f of files) {
      const source = readFileSync(join("src", f), "utf8")
      const out = wrap(source, f)
      // Counted apart from the plugin: one-declaration lines `const X = Schema.…` at the top level.
      const expected = source.match(/^(export )?const \w+(: [^=\n]+)? = Schema\./gm)?.length ?? 0
      expect(out.match(/\/\* @__PURE__ \*\/ \(\(\) => \(Schema\./g)?.length ?? 0, f).toBeGreaterThanOrEqual(expected)
      expect(() => transformSync(out, { loader: "ts" }), f).not.toThrow()
      wrapped += expected
    }
    expect(wrapped).toBeGreaterThan(200)
  })
})
