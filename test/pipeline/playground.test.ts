import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Toml from "smol-toml"
import { compileOutput, runExitCode, runOutput } from "../../src/services/Runner/output"
import { writePlayground } from "../../src/commands/playground"
import { runProject } from "../../src/services/Runner/run"
import { tempDir } from "./fixtures"
import { compileRoot, query, runtimeLayer } from "./harness"

describe("playground", () => {
  it.live("writes a project that compiles and runs green, twice, with the same artifact", () => {
    const root = path.join(tempDir(), "play")
    return Effect.gen(function* () {
      yield* writePlayground(root).pipe(Effect.provide(NodeContext.layer))
      const config = Toml.parse(fs.readFileSync(path.join(root, "pcli.toml"), "utf8")) as { policy: { version: number } }
      expect(config.policy.version).toBe(1)
      const project = yield* compileRoot(root)
      const out = compileOutput(project, "models", { mask: undefined, classifications: undefined })
      expect(out.execution_layers).toEqual([
        ["raw_customers", "raw_orders"],
        ["stg_customers", "stg_orders"],
        ["mart_customer_ltv", "mart_daily_revenue"]
      ])
      yield* Effect.gen(function* () {
      const run = yield* runProject(project, { projectRoot: root })
      expect(runOutput(run).models.filter((m) => m.status !== "success")).toEqual([])
      expect(runExitCode(run.status)).toBe(0)
      const again = yield* runProject(project, { projectRoot: root, partition: { from: "2024-02-01", to: "2024-02-03" } })
      expect(again.status).toBe("success")
      const hash = (r: typeof run) => r.models.find((m) => m.model_name === "raw_orders")!.output_hash
      expect(hash(again)).toBe(hash(run))
      const days = yield* query("SELECT count(*) FROM mart.mart_daily_revenue")
      expect(days).toEqual([[91n]])
      }).pipe(Effect.provide(runtimeLayer(root)))
    })
  })

  it.effect("refuses a non-empty directory with a typed error", () =>
    Effect.gen(function* () {
      const dir = tempDir()
      fs.writeFileSync(path.join(dir, "keep.txt"), "mine")
      const error = yield* Effect.flip(writePlayground(dir))
      expect(error._tag).toBe("PlaygroundNotEmpty")
      expect(error.code).toBe("playground-not-empty")
      expect(fs.readdirSync(dir)).toEqual(["keep.txt"])
    }).pipe(Effect.provide(NodeContext.layer))
  )
})
