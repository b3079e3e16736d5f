import { Effect, Either } from "effect"
import type { CompiledProject } from "../compile"
import { evaluateSelection, type SelectableGraph } from "./evaluate"
import { parseSelection } from "./selector"

/** A file's path relative to the project root, forward slashes. */
export const projectRelative = (root: string, file: string) => {
  const prefix = root.endsWith("/") ? root : `${root}/`
  return (file.startsWith(prefix) ? file.slice(prefix.length) : file).replace(/\\/g, "/")
}

/** The compiled project as a graph selections run over; files relative to the project root. */
export const projectGraph = (project: CompiledProject, root: string): SelectableGraph => {
  const upstream = new Map<string, ReadonlyArray<string>>([...project.models].map(([name, m]) => [name, m.upstream]))
  return {
    names: project.order,
    upstream: (name) => upstream.get(name) ?? [],
    downstream: (name) => project.downstream.get(name) ?? [],
    tags: (name) => project.models.get(name)?.definition.sidecar.tags ?? {},
    files: (name) => {
      const d = project.models.get(name)?.definition
      if (d === undefined) return []
      return [d.sqlPath, d.sidecarPath, ...(d.contractPath === undefined ? [] : [d.contractPath])].map((f) => projectRelative(root, f))
    }
  }
}

/** The models `--select` values pick, in execution order; every model when none is given. */
export const selectModels = (project: CompiledProject, root: string, select: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (select.length === 0) return project.order
    const selection = yield* Either.match(parseSelection(select), { onLeft: Effect.fail, onRight: Effect.succeed })
    return yield* Either.match(evaluateSelection(projectGraph(project, root), selection), { onLeft: Effect.fail, onRight: Effect.succeed })
  })
