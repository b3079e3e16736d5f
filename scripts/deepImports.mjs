// Rewrites barrel imports of the Effect packages into per-module imports, so the bundle
// evaluates only the modules pcli uses (the barrels cost ~100 ms of start-up each).
import { readFile } from "node:fs/promises"

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

export const deepImports = {
  name: "deep-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => ({
      contents: rewriteBarrelImports(await readFile(args.path, "utf8")),
      loader: "ts"
    }))
  }
}
