// The light entries run on LightCoreLayer (one layer) instead of CoreLayer (merged layers). What their
// commands can see of it must be CoreLayer's: the same loggers in force (logs to stderr), the same
// tracing switch, files, paths and environment.
import { FileSystem, Path } from "@effect/platform"
import { Effect, FiberRef, HashSet, type Layer } from "effect"
import { describe, expect, it } from "vitest"
import { CoreLayer, LightCoreLayer } from "../../src/layers/CoreLayer"
import { Environment } from "../../src/services/Environment/Environment"

const seen = Effect.gen(function* () {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  return {
    loggers: [...HashSet.values(yield* FiberRef.get(FiberRef.currentLoggers))],
    tracerEnabled: yield* FiberRef.get(FiberRef.currentTracerEnabled),
    environment: yield* Environment,
    joined: path.join("a", "..", "b"),
    readsFiles: (yield* fs.readFileString(__filename)).includes("LightCoreLayer")
  }
})

const under = (layer: Layer.Layer<FileSystem.FileSystem | Path.Path | Environment>) => Effect.runPromise(seen.pipe(Effect.provide(layer)))

describe("LightCoreLayer", () => {
  it("gives a command what CoreLayer gives it", async () => {
    const light = await under(LightCoreLayer)
    const core = await under(CoreLayer)
    expect(light).toEqual(core)
    // The same logger objects (toEqual alone would accept look-alikes).
    expect(light.loggers.every((l, i) => l === core.loggers[i])).toBe(true)
  })
})
