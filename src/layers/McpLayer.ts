import { McpServer } from "@effect/ai"
import { NodeSink, NodeStream } from "@effect/platform-node"
import type { FileSystem, Path } from "@effect/platform"
import { Effect, Layer } from "effect"
import * as NodeFs from "node:fs"
import { Environment } from "../services/Environment/Environment"
import { attributesOf, ModelAttributesSource, ModelAttributesUnavailable, ModelNotFound } from "../services/PolicyEngine/attributes"
import { mcpPrincipal, Principal } from "../services/Principal/Principal"
import * as Compiler from "../services/Project/compile"
import { ProjectContext, resolveProject } from "../services/ProjectConfig/ProjectContext"
import { plansLayer } from "./GovernLayer"
import { ProductWorkspaceLayer } from "./ProductLayer"
import { type GlobalOptions, policyLayer, stateLayer } from "./ProjectLayer"

/**
 * Model attributes for a long-lived server: the compiled project is reused until the models
 * directory reports a change (inotify through fs.watch), then recompiled on the next read.
 * Where watching is unavailable every read recompiles.
 */
const freshAttributesLayer = Layer.scoped(
  ModelAttributesSource,
  Effect.gen(function* () {
    const env = yield* Environment
    const context = yield* Effect.context<FileSystem.FileSystem | Path.Path>()
    const cache = new Map<string, Compiler.CompiledProject>()
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
        return Compiler.loadAndCompile({ modelsDir, env }).pipe(
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

/** The acting principal under `pcli mcp`: always agent `mcp-<profile>` (decisions.md 26). */
const mcpProjectLayer = (options: GlobalOptions, profile: string) =>
  Layer.effect(ProjectContext, resolveProject(options, true)).pipe(Layer.provideMerge(Layer.effect(Principal, mcpPrincipal(profile))))

/**
 * Everything the MCP tools use, built once for the server's life: the project as resolved at
 * start, the store opened for writing (the write tools record ledger rows), policy, plans.
 */
export const McpLayer = (options: GlobalOptions, profile: string) =>
  Layer.mergeAll(plansLayer, Compiler.layer, policyLayer, freshAttributesLayer, ProductWorkspaceLayer(options)).pipe(
    Layer.provideMerge(stateLayer("write")),
    Layer.provideMerge(mcpProjectLayer(options, profile))
  )

/** The stdio MCP server: `register` adds the tools, on `McpLayer`'s services built once for the server's life. */
export const McpServerLayer = <E, R>(
  options: GlobalOptions,
  profile: string,
  version: string,
  register: Effect.Effect<void, E, R>
) =>
  Layer.effectDiscard(register).pipe(
    Layer.provide(McpServer.layerStdio({ name: "pcli", version, stdin: NodeStream.stdin, stdout: NodeSink.stdout })),
    Layer.provide(McpLayer(options, profile))
  )
