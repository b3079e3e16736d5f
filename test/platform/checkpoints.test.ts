// The crash-safety checkpoints: production passes them by; the test hooks come in only through
// src/layers, and only when a test sets their variables (the crash tests drive the real binary).
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Checkpoints, passBy } from "../../src/platform/Checkpoints"
import { TestHooksLayer } from "../../src/layers/TestHooksLayer"
import { Environment } from "../../src/services/Environment/Environment"

const checkpointsWith = (env: Record<string, string | undefined>) =>
  Checkpoints.pipe(Effect.provide(TestHooksLayer.pipe(Layer.provide(Layer.succeed(Environment, env)))))

describe("Checkpoints", () => {
  it.effect("without a test variable the default stands: every checkpoint passes by", () =>
    Effect.gen(function* () {
      expect(yield* Checkpoints).toBe(passBy)
      expect(yield* checkpointsWith({})).toBe(passBy)
      expect(yield* checkpointsWith({ PCLI_TEST_CRASH_AFTER: "", PCLI_TEST_PAUSE_AT: "" })).toBe(passBy)
    })
  )

  it.effect("a test variable swaps in the test hooks; another step or point still passes by", () =>
    Effect.gen(function* () {
      const hooks = yield* checkpointsWith({ PCLI_TEST_CRASH_AFTER: "journal", PCLI_TEST_PAUSE_AT: "approve-observed:/nonexistent/fifo" })
      expect(hooks).not.toBe(passBy)
      // Neither kills nor blocks this process: not the step, not the point.
      yield* hooks.after("stage")
      yield* hooks.pauseAt("elsewhere")
    })
  )

  it("production code never imports the test hooks: only src/layers wires them", () => {
    const importers = (readdirSync("src", { recursive: true }) as Array<string>)
      .filter((f) => f.endsWith(".ts"))
      .filter((f) => /from "[./]*(platform\/)?testHooks"/.test(readFileSync(join("src", f), "utf8")))
    expect(importers).toEqual([join("layers", "TestHooksLayer.ts")])
  })
})
