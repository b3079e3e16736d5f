import type { FileSystem, Path } from "@effect/platform"
import { Effect, Layer } from "effect"
import { loadAndCompile } from "../services/Project/compile"
import {
  type ModelAttributes,
  ModelAttributesSource,
  ModelAttributesUnavailable,
  ModelNotFound
} from "../services/PolicyEngine/attributes"
import { Environment } from "../services/Environment/Environment"
import type { CompiledModel } from "../services/Project/compile"

const toAttributes = (m: CompiledModel): ModelAttributes => ({
  name: m.name,
  tags: m.definition.sidecar.tags,
  classifications: [...new Set(Object.values(m.definition.sidecar.classification))],
  contracted: m.contracted,
  layer: m.layer,
  downstreams: m.downstreams,
  reachableDownstreams: m.reachableDownstreams
})

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
        return m === undefined ? Effect.fail(new ModelNotFound({ model, modelsDir })) : Effect.succeed(toAttributes(m))
      })
  })
})

export const modelAttributesLayer = Layer.effect(ModelAttributesSource, makeModelAttributes)
