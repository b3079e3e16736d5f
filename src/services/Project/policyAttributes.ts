import type { FileSystem, Path } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Environment } from "../Environment/Environment"
import { attributesOf, ModelAttributesSource, ModelAttributesUnavailable, ModelNotFound } from "../PolicyEngine/attributes"
import { loadAndCompile } from "./compile"

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
