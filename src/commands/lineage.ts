import { Effect } from "effect"
import type { DependentsOutput, LineageOutput } from "../schemas/lineage"
import { ModelNotFound } from "../services/PolicyEngine/attributes"
import { closureOf, type CompiledProject, downstreamClosure } from "../services/Project/compile"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { compiledProject } from "./compile"

/** Names in the project's execution order (closures come back sorted by name). */
const inOrder = (project: CompiledProject, names: ReadonlyArray<string>) => {
  const wanted = new Set(names)
  return project.order.filter((n) => wanted.has(n))
}

const compiledWith = (model: string) =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const project = yield* compiledProject
    const m = project.models.get(model)
    if (m === undefined) return yield* new ModelNotFound({ model, modelsDir })
    return { project, m }
  })

/** MCP `lineage`: upstream and downstream of one model, direct and transitive. */
export const lineage = (model: string) =>
  Effect.gen(function* () {
    const { project, m } = yield* compiledWith(model)
    const upstream = new Map([...project.models].map(([name, cm]) => [name, cm.upstream]))
    return {
      command: "lineage",
      model,
      upstream: [...m.upstream],
      downstream: [...(project.downstream.get(model) ?? [])],
      upstream_closure: inOrder(project, closureOf(model, upstream)),
      downstream_closure: inOrder(project, downstreamClosure(project, model)),
      sources: [...m.sourceRefs]
    } satisfies LineageOutput
  })

/** MCP `dependents`: every model a change to this one rebuilds. */
export const dependents = (model: string) =>
  Effect.gen(function* () {
    const { project } = yield* compiledWith(model)
    const transitive = inOrder(project, downstreamClosure(project, model))
    return {
      command: "dependents",
      model,
      direct: [...(project.downstream.get(model) ?? [])],
      transitive,
      count: transitive.length
    } satisfies DependentsOutput
  })
