// Which room may import which (docs: DESIGN.md, "Data flows one way"), checked on every file under src/.
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { describeCycle, edgesOf, folderCycles, folderGraph, layeringViolations, specifiersOf } from "./walker"

const sources = (): ReadonlyMap<string, string> =>
  new Map(
    readdirSync("src", { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".ts"))
      .sort()
      .map((f) => [`src/${f.split("\\").join("/")}`, readFileSync(`src/${f}`, "utf8")] as const)
  )

describe("the walker", () => {
  it("finds static, re-exported, side-effect and dynamic relative imports, and skips packages", () => {
    const source = [
      `import { Effect } from "effect"`,
      `import type { A } from "../a"`,
      `import {\n  b,\n  c\n} from "./b"`,
      `export { d } from "./d"`,
      `export * from "./e"`,
      `import "./f"`,
      `const g = () => import("../g")`,
      `type H = typeof import("./h")`
    ].join("\n")
    expect(specifiersOf(source)).toEqual(["../a", "./b", "./d", "./e", "./f", "../g", "./h"])
  })

  it("names a surface reaching into services, a service importing layers and a schema importing services", () => {
    const edges = edgesOf(
      new Map([
        ["src/cli/bad.run.ts", `import { ProjectContext } from "../services/ProjectConfig/ProjectContext"`],
        ["src/http/ok.ts", `import { audit } from "../commands/audit"`],
        ["src/mcp/lazy.ts", `const m = () => import("../services/Runner/run")`],
        ["src/services/Runner/run.ts", `import { RunLayer } from "../../layers/RunLayer"`],
        ["src/schemas/plans.ts", `import type { Plan } from "../services/Plans/PlanStore"`]
      ])
    )
    expect(layeringViolations(edges)).toEqual([
      `src/cli/bad.run.ts imports "../services/ProjectConfig/ProjectContext": a surface reaches past the commands into src/services`,
      `src/mcp/lazy.ts imports "../services/Runner/run": a surface reaches past the commands into src/services`,
      `src/services/Runner/run.ts imports "../../layers/RunLayer": a service imports the wiring in src/layers`,
      `src/schemas/plans.ts imports "../services/Plans/PlanStore": a schema imports src/services`
    ])
  })

  it("reports each cycle between service folders once, with the imports that close it, and none within a folder", () => {
    const graph = folderGraph(
      edgesOf(
        new Map([
          ["src/services/A/a.ts", `import { b } from "../B/b"\nimport { a2 } from "./a2"`],
          ["src/services/A/a2.ts", `import { a } from "./a"`],
          ["src/services/B/b.ts", `import { c } from "../C/c"`],
          ["src/services/C/c.ts", `import { a } from "../A/a"`],
          ["src/services/D/d.ts", `import { a } from "../A/a"`]
        ])
      )
    )
    const cycles = folderCycles(graph)
    expect(cycles).toEqual([["A", "B", "C"]])
    expect(describeCycle(graph, cycles[0]!)).toContain(`C → A: src/services/C/c.ts imports "../A/a"`)
  })
})

describe("src/", () => {
  const edges = edgesOf(sources())

  it("surfaces import no service, services no layer, schemas no service", () => {
    expect(layeringViolations(edges)).toEqual([])
  })

  it("has no cycle between service folders", () => {
    const graph = folderGraph(edges)
    expect(folderCycles(graph).map((c) => describeCycle(graph, c))).toEqual([])
  })
})
