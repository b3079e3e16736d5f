import { describe, expect, it } from "@effect/vitest"
import { progressText } from "../../src/render/text/progress"

describe("progress lines off a terminal", () => {
  it("group thousands as en-US does, whatever the machine's locale", () => {
    expect(progressText({ kind: "finished", model: "stg_orders", status: "success", strategy: "full_refresh", duration_ms: 310, rows: 1204, done: 12, total: 200 })).toBe(
      "[12/200] OK stg_orders (full_refresh, 1,204 rows, 0.31 s)"
    )
    expect(
      progressText({ kind: "finished", model: "daily", status: "success", strategy: "time_interval", duration_ms: 1500, rows: 12345678, intervals: 1096, done: 1, total: 1 })
    ).toBe("[1/1] OK daily (time_interval, 1,096 intervals, 12,345,678 rows, 1.50 s)")
  })

  it("a model's finished line carries its START line's number, not how many have finished", () => {
    expect(progressText({ kind: "started", model: "b", strategy: "full_refresh", started: 2, done: 0, total: 3 })).toBe("[2/3] START b (full_refresh)")
    expect(progressText({ kind: "finished", model: "b", status: "success", strategy: "full_refresh", duration_ms: 10, rows: 1, started: 2, done: 1, total: 3 })).toBe(
      "[2/3] OK b (full_refresh, 1 rows, 0.01 s)"
    )
    expect(progressText({ kind: "skipped", model: "c", because: "a", started: 3, done: 2, total: 3 })).toBe("[3/3] SKIPPED c (upstream a failed)")
  })
})
