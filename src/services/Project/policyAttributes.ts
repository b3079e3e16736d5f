import type { FileSystem, Path } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { Environment } from "../Environment/Environment"
import { attributesOf, ModelAttributesSource, ModelAttributesUnavailable, ModelNotFound } from "../PolicyEngine/attributes"
import { type CompiledProject, loadAndCompile } from "./compile"

/** Model attributes for the policy engine, from the compiled project (compiled once per command). */
export const makeModelAttributes = Effect.gen(function* () {
  const env = yield* Environment
  const context = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
  const compile = (modelsDir: string) =>
    loadAndCompile({ modelsDir, env }).pipe(
      Effect.mapError((e) => new ModelAttributesUnavailable({ modelsDir, detail: e.message })),
      Effect.provide(context)
    )
  const cached = yield* Effect.cachedFunction(compile)
  return ModelAttributesSource.of({
    resolve: (model, modelsDir) =>
      Effect.flatMap(cached(modelsDir), (project) => {
        const m = project.models.get(model)
        return m === undefined ? Effect.fail(new ModelNotFound({ model, modelsDir })) : Effect.succeed(attributesOf(m))
      })
  })
})

export const modelAttributesLayer = Layer.effect(ModelAttributesSource, makeModelAttributes)

/**
 * Model attributes for a long-lived server: the compiled project is reused until the models
 * directory reports a change (inotify through fs.watch), then recompiled on the next read.
 * Where watching is unavailable every read recompiles.
 */
export const watchedModelAttributesLayer = Layer.scoped(
  ModelAttributesSource,
  Effect.gen(function* () {
    const env = yield* Environment
    const context = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
    const cache = new Map<string, CompiledProject>()
    // Bumped by every change event: a compile that raced a change is not cached.
    let generation = 0
    const watchers = yield* Effect.acquireRelease(
      Effect.sync(() => new Map<string, NodeFs.FSWatcher>()),
      (open) => Effect.sync(() => open.forEach((w) => w.close()))
    )
    const watch = (modelsDir: string) => {
      if (watchers.has(modelsDir)) return true
      try {
        const watcher = NodeFs.watch(modelsDir, { persistent: false }, () => {
          generation++
          cache.delete(modelsDir)
        })
        watcher.on("error", () => {
          cache.delete(modelsDir)
          watchers.delete(modelsDir)
        })
        watchers.set(modelsDir, watcher)
        return true
      } catch {
        return false
      }
    }
    const project = (modelsDir: string) =>
      Effect.suspend(() => {
        const hit = cache.get(modelsDir)
        if (hit !== undefined) return Effect.succeed(hit)
        const watched = watch(modelsDir)
        const started = generation
        return loadAndCompile({ modelsDir, env }).pipe(
          Effect.mapError((e) => new ModelAttributesUnavailable({ modelsDir, detail: e.message })),
          Effect.tap((compiled) => Effect.sync(() => void (watched && generation === started && cache.set(modelsDir, compiled)))),
          Effect.provide(context)
        )
      })
    return ModelAttributesSource.of({
      resolve: (model, modelsDir) =>
        Effect.flatMap(project(modelsDir), (p) => {
          const m = p.models.get(model)
          return m === undefined ? Effect.fail(new ModelNotFound({ model, modelsDir })) : Effect.succeed(attributesOf(m))
        })
    })
  })
)
