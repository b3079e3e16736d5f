import { Data, Effect } from "effect"
import type { ModelLineageOutput } from "../schemas/inspect"
import { ModelNotFound } from "../services/PolicyEngine/attributes"
import type { CompiledProject } from "../services/Project/compile"
import { projectColumns, traceDownstream, traceUpstream } from "../services/Project/lineage"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { compiledProject } from "./compile"

/** `--depth` that is not a positive integer. */
export class InvalidDepth extends Data.TaggedError("InvalidDepth")<{ readonly value: string }> {
  readonly code = "depth-invalid"
  override get message() {
    return `--depth ${JSON.stringify(this.value)} is not a positive integer (1 = direct neighbours)`
  }
}

/** `--column` names a column the model's SQL does not output. */
export class ColumnNotFound extends Data.TaggedError("ColumnNotFound")<{ readonly model: string; readonly column: string; readonly columns: ReadonlyArray<string> }> {
  readonly code = "column-not-found"
  override get message() {
    return `model ${this.model} has no output column ${JSON.stringify(this.column)} (it has ${this.columns.join(", ") || "none"})`
  }
}

export type LineageDirection = "both" | "upstream" | "downstream"

export interface LineageRequest {
  readonly model: string
  readonly column: string | undefined
  readonly direction: LineageDirection
  /** As typed: validated here, so a bad value is exit 1 with its own code. */
  readonly depth: string | undefined
  /** Read and write `.pcli/lineage-cache.json` (the CLI); the server never writes a cache (decisions 22). */
  readonly useCache?: boolean
}

export const parseDepth = (value: string | undefined) =>
  value === undefined ? Effect.succeed(undefined) : /^[1-9]\d{0,5}$/.test(value) ? Effect.succeed(Number(value)) : Effect.fail(new InvalidDepth({ value }))

/** Models within `depth` edges along `next`, nearest first, ties in execution order. */
const within = (project: CompiledProject, model: string, next: (m: string) => ReadonlyArray<string>, depth: number | undefined) => {
  const distance = new Map<string, number>([[model, 0]])
  let frontier = [model]
  for (let d = 1; frontier.length > 0 && (depth === undefined || d <= depth); d++) {
    const following: Array<string> = []
    for (const m of frontier) for (const n of next(m)) if (!distance.has(n)) (distance.set(n, d), following.push(n))
    frontier = following
  }
  distance.delete(model)
  const rank = new Map(project.order.map((n, i) => [n, i]))
  return [...distance].sort(([a, da], [b, db]) => da - db || rank.get(a)! - rank.get(b)!).map(([m, d]) => ({ model: m, distance: d }))
}

/** `pcli lineage <model>`: model-level lineage within `--depth`, the model's column lineage, and a `--column` trace. */
export const modelLineage = (request: LineageRequest) =>
  Effect.gen(function* () {
    const depth = yield* parseDepth(request.depth)
    const { modelsDir, root } = yield* ProjectContext
    const project = yield* compiledProject
    const m = project.models.get(request.model)
    if (m === undefined) return yield* new ModelNotFound({ model: request.model, modelsDir })
    const columns = yield* projectColumns(project, new Map(), request.useCache === true ? root : undefined)
    const own = columns.get(request.model)!
    const up = request.direction !== "downstream"
    const down = request.direction !== "upstream"
    const upstreamOf = (name: string) => project.models.get(name)?.upstream ?? []
    const downstreamOf = (name: string) => project.downstream.get(name) ?? []
    let column: ModelLineageOutput["column"]
    if (request.column !== undefined) {
      const known = own.columns?.map((c) => c.name)
      const name = known?.find((c) => c.toLowerCase() === request.column!.toLowerCase()) ?? request.column
      if (known !== undefined && !known.includes(name)) return yield* new ColumnNotFound({ model: request.model, column: request.column, columns: known })
      const upstream = up ? traceUpstream(columns, request.model, name, depth) : undefined
      const downstream = down ? traceDownstream(columns, downstreamOf, request.model, name, depth) : undefined
      column = {
        name,
        ...(upstream === undefined ? {} : { upstream: upstream.found }),
        ...(downstream === undefined ? {} : { downstream: downstream.found, read_by: downstream.readBy }),
        unresolved: [...(upstream?.unresolved ?? []), ...(downstream?.unresolved ?? [])]
      }
    }
    return {
      command: "lineage",
      model: request.model,
      direction: request.direction,
      depth: depth ?? null,
      ...(up ? { upstream: within(project, request.model, upstreamOf, depth) } : {}),
      ...(down ? { downstream: within(project, request.model, downstreamOf, depth) } : {}),
      sources: [...m.sourceRefs],
      columns: own.columns === undefined ? null : own.columns.map((c) => ({ name: c.name, reads: [...c.origin.reads], unresolved: [...c.origin.unresolved] })),
      columns_unresolved: [...own.columnsUnresolved],
      ...(column === undefined ? {} : { column })
    } satisfies ModelLineageOutput
  })
