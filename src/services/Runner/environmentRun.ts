import { Clock, Effect } from "effect"
import type { TargetBlock } from "../../schemas/model"
import type { CompiledModel, CompiledProject } from "../Project/compile"
import { Warehouse } from "../Warehouse/Warehouse"
import { readPhysicalTables } from "./directReads"
import { type EnvironmentModel, PRODUCTION } from "./environmentRows"
import { readBranchTables } from "./branchReads"
import { type BuildState, type IntervalState, RunStore, RunStoreFailed } from "./RunStore"
import type { RunOptions } from "./runOptions"
import {
  chooseTable,
  environmentFingerprints,
  isVirtual,
  migrateLegacyTargets,
  physicalTarget,
  relationName,
  tableKeyOf,
  viewStatement,
  viewTarget
} from "./virtual"

const storeFailed = (e: { readonly message: string }) => new RunStoreFailed({ detail: e.message })

/**
 * What a run does in its environment (decision 37): each model's environment fingerprint, the
 * physical table a build writes, the view it publishes, and (on a branch) which models are
 * reused from the base and how a rebuilt model's SQL reads its upstreams' branch tables.
 */
export const prepareEnvironment = (project: CompiledProject, options: RunOptions) =>
  Effect.gen(function* () {
    const store = yield* RunStore
    const name = options.branch?.name ?? PRODUCTION
    const fingerprints = environmentFingerprints(project)
    const current = new Map(yield* store.environments.modelsOf(name).pipe(Effect.mapError(storeFailed)))
    const base = options.branch === undefined ? new Map<string, EnvironmentModel>() : yield* store.environments.modelsOf(options.branch.base).pipe(Effect.mapError(storeFailed))
    const needsMigration = options.branch === undefined && [...project.models.values()].some((m) => isVirtual(m) && !current.has(m.name))
    if (needsMigration) {
      const moved = yield* migrateLegacyTargets(project, current, fingerprints)
      // Recorded at once: the warehouse has already changed, whatever the run does next.
      if (moved.length > 0) yield* store.environments.putModels(name, moved).pipe(Effect.mapError(storeFailed))
      for (const m of moved) current.set(m.model_name, m)
    }
    // A branch reads tables whose build state production's does not describe: their data versions are kept by table.
    const kept = options.branch === undefined ? new Map<string, Readonly<Record<string, unknown>>>() : yield* store.environments.physicalBuilds.pipe(Effect.mapError(storeFailed))
    const chosen = new Map<string, string>()
    const physicalOf = (model: CompiledModel): string | undefined => {
      if (!isVirtual(model)) return undefined
      const known = chosen.get(model.name)
      if (known !== undefined) return known
      const table = chooseTable(model, current.get(model.name), fingerprints.get(model.name)!, name)
      chosen.set(model.name, table)
      return table
    }
    const changes: Array<EnvironmentModel> = []
    const now = () => Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
    const heldRow = (model: CompiledModel) => {
      const fingerprint = fingerprints.get(model.name)
      const b = base.get(model.name)
      if (b?.fingerprint === fingerprint) return b
      const c = current.get(model.name)
      return c?.fingerprint === fingerprint ? c : undefined
    }
    const versions = new Map<string, string>()
    for (const model of project.models.values()) {
      const row = options.branch !== undefined && isVirtual(model) ? heldRow(model) : undefined
      const version = row === undefined ? undefined : kept.get(row.physical)?.["data_version"]
      if (typeof version === "string") versions.set(model.name, version)
    }
    return {
      name,
      fingerprints,
      /** On a branch: the data version of each table it reads without building, where a branch build recorded one. */
      versions: versions as ReadonlyMap<string, string>,
      /** On a branch: its builds, kept by physical table (production's incremental state stays its own). */
      keptBuilds: (builds: ReadonlyArray<BuildState>, intervals: ReadonlyArray<{ readonly model_name: string; readonly rows: ReadonlyArray<IntervalState> }>) =>
        options.branch === undefined
          ? []
          : builds.flatMap((build) => {
              const model = project.models.get(build.model_name)
              const physical = model === undefined ? undefined : physicalOf(model)
              return physical === undefined ? [] : [{ physical, build, intervals: intervals.find((i) => i.model_name === build.model_name)?.rows ?? [] }]
            }),
      isBranch: options.branch !== undefined,
      /** The rows a run records for its environment. */
      changes: changes as ReadonlyArray<EnvironmentModel>,
      physicalOf,
      /** True when the environment's view does not yet point at the table a build would write. */
      moved: (model: CompiledModel) => isVirtual(model) && current.get(model.name)?.physical !== physicalOf(model),
      /** True when every virtual model of the layers already holds its fingerprint (nothing to move). */
      settled: (layers: ReadonlyArray<ReadonlyArray<string>>) =>
        layers.every((l) => l.every((n) => !isVirtual(project.models.get(n)!) || current.get(n)?.fingerprint === fingerprints.get(n))),
      /** On a branch: the base's row when it holds this model's fingerprint (the model is reused, not built). */
      reusable: (model: CompiledModel): EnvironmentModel | undefined => {
        const row = base.get(model.name)
        return options.branch !== undefined && isVirtual(model) && row?.fingerprint === fingerprints.get(model.name) ? row : undefined
      },
      physical: (model: CompiledModel): TargetBlock | undefined => {
        const table = physicalOf(model)
        return table === undefined ? undefined : physicalTarget(model, table)
      },
      view: (model: CompiledModel) => viewTarget(model, name),
      publishView: (model: CompiledModel, kind: "embedded" | "remote"): ReadonlyArray<string> => {
        const table = physicalOf(model)
        return table === undefined ? [] : [viewStatement(viewTarget(model, name), physicalTarget(model, table), kind)]
      },
      /** On a branch, the SQL with each upstream model's target replaced by the table this branch reads it from. */
      sqlFor: (model: CompiledModel, kind: "embedded" | "remote"): string => {
        if (options.branch === undefined) return model.definition.sql
        const reads = model.upstream.flatMap((u) => {
          const up = project.models.get(u)
          const table = up === undefined ? undefined : physicalOf(up)
          if (up === undefined || table === undefined) return []
          const reused = base.get(u)
          const source = reused !== undefined && reused.fingerprint === fingerprints.get(u) ? reused.physical : table
          return [{ view: up.target, relation: relationName(physicalTarget(up, source), kind) }]
        })
        return readBranchTables(model.definition.sql, reads)
      },
      /**
       * In production on the embedded warehouse: the SQL a build executes, reading the upstreams built
       * earlier in this run (`built`) from their physical tables, not through their views (`directReads.ts`).
       */
      executable: (model: CompiledModel, kind: "embedded" | "remote", built: (name: string) => boolean) => {
        if (options.branch !== undefined || kind !== "embedded") return undefined
        const reads = model.upstream.flatMap((u) => {
          const up = project.models.get(u)
          const table = up === undefined || !built(u) ? undefined : physicalOf(up)
          return up === undefined || table === undefined ? [] : [{ view: up.target, physical: relationName(physicalTarget(up, table), kind) }]
        })
        return reads.length === 0 ? undefined : (sql: string) => readPhysicalTables(sql, reads)
      },
      /** Records that the model's view now points at its physical table (or at the base's, when reused). */
      settle: (model: CompiledModel, reusedRow?: EnvironmentModel) =>
        Effect.gen(function* () {
          const table = reusedRow?.physical ?? physicalOf(model)
          if (table === undefined) return
          changes.push({ model_name: model.name, physical: table, fingerprint: fingerprints.get(model.name)!, table_key: tableKeyOf(model), updated_at: yield* now() })
        }),
      /** Points a reused model's branch view at the base's physical table (its schema made first, once per run, by the runner). */
      pointAtBase: (model: CompiledModel, row: EnvironmentModel) =>
        Effect.flatMap(Warehouse, (wh) => wh.execute(viewStatement(viewTarget(model, name), physicalTarget(model, row.physical), wh.kind)))
    }
  })

export type PreparedEnvironment = Effect.Effect.Success<ReturnType<typeof prepareEnvironment>>
