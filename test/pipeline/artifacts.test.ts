import { describe, expect, it } from "@effect/vitest"
import { blake3Hex } from "../../src/platform/blake3"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { runProject } from "../../src/services/Runner/run"
import { RunStore } from "../../src/services/Runner/RunStore"
import { target, tempDir, writeProject } from "./fixtures"
import { compileRoot, query, runtimeLayer } from "./harness"

const ca = (prefix: string) => `[strategy]\ntype = "content_addressed"\nstorage_prefix = "${prefix}"\n`

const caProject = (prefix: string) =>
  writeProject({
    orders: {
      sql: "SELECT range AS id, hash(range) % 97 AS amount, 'c' || (range % 7) AS customer FROM range(5000)",
      toml: target("raw", "orders") + ca(prefix)
    },
    totals: {
      sql: "SELECT customer, sum(amount) AS total FROM raw.orders GROUP BY customer",
      toml: target("mart", "totals") + ca(prefix)
    },
    plain: { sql: "SELECT 1 AS x", toml: target("main", "plain") },
    mixed: {
      sql: "SELECT * FROM raw.orders, main.plain",
      toml: target("mart", "mixed") + ca(prefix)
    }
  })

describe("content_addressed", () => {
  it.live("same recipe twice gives byte-identical Parquet under the same BLAKE3 name, with ledger and provenance rows", () => {
    const root = caProject("artifacts/ca")
    return Effect.gen(function* () {
      const project = yield* compileRoot(root)
      const first = yield* runProject(project, { projectRoot: root })
      const second = yield* runProject(project, { projectRoot: root, runId: "run-second" })
      expect(first.status).toBe("success")
      const dir = path.join(root, "artifacts", "ca")
      const files = fs.readdirSync(dir).sort()
      expect(files.every((f) => /^[0-9a-f]{64}\.parquet$/.test(f))).toBe(true)
      expect(files).toHaveLength(3)
      const orders1 = first.models.find((m) => m.model_name === "orders")!.output_hash!
      const orders2 = second.models.find((m) => m.model_name === "orders")!.output_hash!
      expect(orders2).toBe(orders1)
      const bytes = fs.readFileSync(path.join(dir, `${orders1}.parquet`))
      expect(blake3Hex(bytes)).toBe(orders1)
      // Downstream SQL reads the artifact through a view.
      expect(yield* query("SELECT count(*) FROM raw.orders")).toEqual([[5000n]])
      const store = yield* RunStore
      const artifacts = yield* store.artifactsOf(first.run_id)
      expect(artifacts.map((a) => a.model_name)).toEqual(["mixed", "orders", "totals"])
      const ordersRow = artifacts.find((a) => a.model_name === "orders")!
      expect(ordersRow.file_path).toBe(`artifacts/ca/${orders1}.parquet`)
      expect(ordersRow.size_bytes).toBe(bytes.length)
      expect(ordersRow.commit_version).toBe(1)
      expect(ordersRow.rows).toBe(5000)
      const again = yield* store.artifactsOf("run-second")
      expect(again.find((a) => a.model_name === "orders")!.commit_version).toBe(2)
      // Provenance: no reads → vacuously strong; reads a CA output → strong with its hash; reads a table → heuristic.
      const pOrders = (yield* store.provenanceOf(first.run_id, "orders"))!
      expect(pOrders.proof_class).toBe("strong")
      expect(pOrders.upstreams).toEqual([])
      expect(JSON.parse(pOrders.model_canonical_json).sql).toContain("range(5000)")
      const pTotals = (yield* store.provenanceOf(first.run_id, "totals"))!
      expect(pTotals.proof_class).toBe("strong")
      expect(pTotals.upstreams).toEqual([{ kind: "content", upstream_key: "warehouse.raw.orders", blake3_hash: orders1 }])
      expect(pTotals.output_blake3).toEqual([second.models.find((m) => m.model_name === "totals")!.output_hash])
      const pMixed = (yield* store.provenanceOf(first.run_id, "mixed"))!
      expect(pMixed.proof_class).toBe("heuristic")
      const pSecond = (yield* store.provenanceOf("run-second", "totals"))!
      expect(pSecond.recipe_hash).toBe(pTotals.recipe_hash)
      expect(pSecond.input_hash).toBe(pTotals.input_hash)
    }).pipe(Effect.provide(runtimeLayer(root)))
  })

  it.live("two separate warehouses produce the same bytes for the same recipe", () => {
    const out = tempDir()
    const prefix = `file://${out}`
    const a = caProject(prefix)
    const b = caProject(prefix)
    const hashOf = (root: string) =>
      Effect.gen(function* () {
        const run = yield* runProject(yield* compileRoot(root), { projectRoot: root })
        return run.models.map((m) => m.output_hash)
      }).pipe(Effect.provide(runtimeLayer(root)))
    return Effect.gen(function* () {
      const ha = yield* hashOf(a)
      const hb = yield* hashOf(b)
      expect(ha).toEqual(hb)
      expect(fs.readdirSync(out).filter((f) => f.startsWith(".tmp"))).toEqual([])
    })
  })
})
