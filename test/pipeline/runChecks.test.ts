import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { runProject } from "../../src/services/Runner/run"
import { RunStore } from "../../src/services/Runner/RunStore"
import { target, writeProject } from "./fixtures"
import { compileRoot, countingWarehouse, query, runtimeLayer } from "./harness"

const fast = { maxRetries: 3, baseDelayMillis: 1 }

const project = () =>
  writeProject({
    daily: {
      sql: "SELECT d::TIMESTAMP AS day, 1 AS v FROM range(TIMESTAMP '2024-01-01', TIMESTAMP '2024-01-06', INTERVAL 1 DAY) r(d) WHERE d >= @start_date AND d < @end_date",
      toml: target("main", "daily") + '[strategy]\ntype = "time_interval"\ntime_column = "day"\ngranularity = "day"\n'
    },
    plain: { sql: "SELECT 1 AS id", toml: target("main", "plain") },
    after_plain: { sql: "SELECT * FROM main.plain", toml: target("main", "after_plain") }
  })

describe("run: the selection and the window are checked before any work", () => {
  it.live("unknown models, a bad, reversed or pointless window: a typed error, no statement, no run recorded", () => {
    const root = project()
    const counter = countingWarehouse()
    return Effect.gen(function* () {
      const compiled = yield* compileRoot(root)
      const attempt = (options: Omit<Parameters<typeof runProject>[1], "projectRoot">) =>
        Effect.flip(runProject(compiled, { projectRoot: root, retry: fast, ...options }))

      const unknown = yield* attempt({ models: ["plain", "nosuch", "other\u001b[31m"] })
      expect(unknown._tag).toBe("ModelsNotFound")
      expect(unknown.code).toBe("model-not-found")
      expect(unknown.message).toBe('models "nosuch", "other\\u001b[31m" not found in the project')

      const garbage = yield* attempt({ partition: { from: "garbage", to: "x" } })
      expect(garbage._tag).toBe("InvalidPartitionWindow")
      expect(garbage.code).toBe("invalid-partition-window")
      expect(garbage.message).toBe(
        'invalid partition window --from "garbage" --to "x": --from "garbage" is not a day partition key (YYYY-MM-DD) of model daily'
      )

      const reversed = yield* attempt({ partition: { from: "2024-01-05", to: "2024-01-01" } })
      expect(reversed._tag).toBe("InvalidPartitionWindow")
      expect(reversed.message).toMatch(/--to is before --from$/)

      const unpartitioned = yield* attempt({ models: ["plain", "after_plain"], partition: { from: "2024-01-01", to: "2024-01-02" } })
      expect(unpartitioned._tag).toBe("WindowNeedsPartitionedModel")
      expect(unpartitioned.code).toBe("window-needs-partitioned-model")
      expect(unpartitioned.message).toBe(
        '--from "2024-01-01" --to "2024-01-02" selects partitions, but none of the selected models is partitioned (time_interval): plain, after_plain'
      )

      expect(counter.seen).toEqual([])
      expect(yield* Effect.flatMap(RunStore, (s) => s.latestRun)).toBeUndefined()
    }).pipe(Effect.provide(Layer.provideMerge(counter.layer, runtimeLayer(root))))
  })

  it.live("a window applies to the selected partitioned models; the others in the selection run whole", () => {
    const root = project()
    return Effect.gen(function* () {
      const run = yield* runProject(yield* compileRoot(root), {
        projectRoot: root,
        retry: fast,
        models: ["daily", "plain", "daily"],
        partition: { from: "2024-01-02", to: "2024-01-03" }
      })
      expect(run.status).toBe("success")
      expect(run.models.map((m) => [m.model_name, m.rows_affected])).toEqual([
        ["daily", 2],
        ["plain", 1]
      ])
      expect(yield* query("SELECT count(*) FROM main.daily")).toEqual([[2n]])
    }).pipe(Effect.provide(runtimeLayer(root)))
  })
})
