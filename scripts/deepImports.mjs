// Rewrites barrel imports of the Effect packages into per-module imports, so the bundle
// evaluates only the modules pcli uses (the barrels cost ~100 ms of start-up each).
import { readFile } from "node:fs/promises"
import ts from "typescript"

const barrels = ["effect", "@effect/platform", "@effect/platform-node", "@effect/cli", "@effect/sql"]
const functionHelpers = new Set(["absurd", "flow", "hole", "identity", "pipe", "unsafeCoerce"])
const pattern = new RegExp(`import\\s+(type\\s+)?\\{([^}]*)\\}\\s*from\\s*"(${barrels.map((b) => b.replace("/", "\\/")).join("|")})"`, "g")

export const rewriteBarrelImports = (source) =>
  source.replace(pattern, (whole, typeOnly, specifiers, pkg) => {
    if (typeOnly) return whole
    const lines = []
    for (const raw of specifiers.split(",")) {
      const spec = raw.trim()
      if (spec === "" || spec.startsWith("type ")) continue
      const [name, alias = name] = spec.split(/\s+as\s+/)
      if (pkg === "effect" && functionHelpers.has(name)) lines.push(`import { ${name} as ${alias} } from "effect/Function"`)
      else lines.push(`import * as ${alias} from "${pkg}/${name}"`)
    }
    return lines.join(";\n")
  })

/**
 * A top-level `const X = Schema.…` becomes `const X = /* @__PURE__ *\/ (() => Schema.…)()`: building a schema has no
 * effect but the value, so a bundle that never reaches X leaves it out instead of building it at every start (an
 * output module's other schemas, a decoder no path of the command uses). A reached X is built as before, in order.
 */
export const pureSchemaConsts = (source, fileName = "module.ts") => {
  if (!source.includes("Schema.")) return source
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const spans = []
  for (const statement of file.statements) {
    if (!ts.isVariableStatement(statement) || (statement.declarationList.flags & ts.NodeFlags.Const) === 0) continue
    for (const declaration of statement.declarationList.declarations) {
      const init = declaration.initializer
      if (init !== undefined && source.startsWith("Schema.", init.getStart(file))) spans.push([init.getStart(file), init.end])
    }
  }
  let out = source
  for (const [start, end] of spans.reverse()) out = `${out.slice(0, start)}/* @__PURE__ */ (() => (${out.slice(start, end)}))()${out.slice(end)}`
  return out
}

export const deepImports = {
  name: "deep-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => ({
      contents: pureSchemaConsts(rewriteBarrelImports(await readFile(args.path, "utf8")), args.path),
      loader: "ts"
    }))
  }
}
