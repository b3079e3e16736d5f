import type { FileSystem, Path } from "@effect/platform"
import { Checkpoints } from "../../platform/Checkpoints"
import { Clock, Context, Effect, Layer, Ref } from "effect"
import type { ErrorClass, ModelExecution, ModelRunStatus, RunRecord } from "../../schemas/pipeline"
import { defaultRetryPolicy, retryTransient } from "../Warehouse/retry"
import { readsFiles, withMemoryToGrow } from "../Warehouse/memoryCap"
import { Warehouse } from "../Warehouse/Warehouse"
import type { CompiledModel, CompiledProject } from "../Project/compile"
import {
  contiguousWindows,
  dataVersionOf,
  existingRelations,
  fingerprintOf,
  needsFullBuild,
  queryDigests,
  sameInputs,
  sourceVersion,
  staleIntervals,
  tableDigests
} from "./incremental"
import { countIntervals, withoutFirst } from "./layerWork"
import {
  type BuildState,
  INTERRUPTED,
  interruptedMessage,
  RunStore,
  type RunStoreFailed,
  type StateChanges,
  skippedMessage,
  UPSTREAM_FAILED
} from "./RunStore"
import { memoByKey, mergeResults, type RunOptions, runStatusOf, mintRunId } from "./runOptions"
import { reusableByState, tablesPresent } from "./noop"
import { checkSelection, type SelectionError } from "./selection"
import { unchangedExecutions } from "./unchanged"
import { connectionLanes } from "./lanes"
import { prepareEnvironment } from "./environmentRun"
import { type PhysicalTableRow, physicalTableRow } from "./environmentRows"
import { executionRow } from "./executionRow"
import { builtAttributesOf } from "../PolicyEngine/attributes"
import { filesOfDefinition } from "../Project/modelFiles"
import {
  ensureSchemas,
  type BuildError,
  buildModel,
  type ContentOutput,
  type PartitionOptions,
  recipeHash,
  sqlHash,
  targetKey
} from "./strategies"

export { mintRunId, type ProgressEvent, type RunOptions, runStatusOf } from "./runOptions"

const classOf = (error: BuildError): ErrorClass =>
  error._tag === "StatementFailed" && error.transient ? "transient" : "permanent"

const iso = (millis: number) => new Date(millis).toISOString()

/** What a model's run does: reuse it, build it whole (or the run's window), or build some intervals. */
type Decision =
  | { readonly kind: "unchanged" }
  | { readonly kind: "build" }
  | { readonly kind: "intervals"; readonly keys: ReadonlyArray<string>; readonly windows: ReadonlyArray<PartitionOptions> }

/**
 * Runs the compiled project: layer by layer, models of a layer concurrently; transient
 * warehouse failures retried with jittered exponential backoff (the only retry layer); a failed
 * model's downstream closure is skipped while everything else still runs. With `reuse`, a model
 * whose fingerprint and upstream data versions match its last successful build is `unchanged`.
 * The selection and window are checked first, before any statement. Records the run, and the
 * builds it made, in the state store in one transaction.
 */
export const runProject = (project: CompiledProject, options: RunOptions) => runProjectWith(project, options, true)

/** `runProject` with every model through the per-model loop: the reference of its one-pass no-op (tests compare them). */
export const runProjectModelByModel = (project: CompiledProject, options: RunOptions) => runProjectWith(project, options, false)

const runProjectWith = (
  project: CompiledProject,
  options: RunOptions,
  direct: boolean
): Effect.Effect<
  RunRecord,
  RunStoreFailed | SelectionError,
  Warehouse | RunStore | FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function* () {
    const { layers } = yield* checkSelection(project, options)
    // The project is compiled: a file edited from here on is not what this run builds (nor records).
    yield* Effect.flatMap(Checkpoints, (c) => c.pauseAt("run-compiled"))
    const store = yield* RunStore
    const startedMillis = yield* Clock.currentTimeMillis
    const runId = options.runId ?? mintRunId(startedMillis)
    const total = layers.reduce((n, l) => n + l.length, 0)
    const position = new Map(layers.flat().map((m, i) => [m, i]))
    const retry = options.retry ?? defaultRetryPolicy
    const emit = options.onProgress ?? (() => Effect.void)
    const stopRequested = options.stopRequested ?? Effect.succeed(false)
    const reuse = options.reuse === true
    const done = yield* Ref.make(0)
    const started = yield* Ref.make(0)
    const status = new Map<string, ModelRunStatus>()
    /** For each failed or skipped model, the failed model at the root of it. */
    const rootFailure = new Map<string, string>()
    const contentOutputs = new Map<string, ContentOutput>()
    const executions: Array<ModelExecution> = []
    const { onLane, width } = yield* connectionLanes(options.concurrency)
    const states = options.buildStates ?? (yield* store.buildStates)
    const env = yield* prepareEnvironment(project, options)
    const kind = (yield* Warehouse).kind
    /** Each model's current data version: its last build's, or this run's once it builds. */
    const versions = new Map([...states.values()].map((b) => [b.model_name, b.data_version]))
    for (const [model, version] of env.versions) versions.set(model, version)
    const builds: Array<BuildState> = []
    const tables: Array<PhysicalTableRow> = []
    const intervalChanges: Array<StateChanges["intervals"][number]> = []
    const relations = yield* Effect.cached(existingRelations)
    const sourceVersionOf = memoByKey((ref) => sourceVersion(ref, runId))
    const schemaLock = yield* Effect.makeSemaphore(1)
    const ensured = new Set<string>()
    // Each schema once, under one lock: two lanes (connections) creating the same schema at once is a catalog
    // write-write conflict. On a lane, so a checkpoint never meets a schema being created; a schema already made needs no lane.
    const ensureSchemaOf = (model: CompiledModel) =>
      Effect.forEach([env.view(model), env.physical(model) ?? model.target], (target) => {
        const key = `${target.catalog}.${target.schema}`
        const create = schemaLock.withPermits(1)(
          Effect.suspend(() => (ensured.has(key) ? Effect.void : Effect.zipRight(ensureSchemas([{ ...model, target }]), Effect.sync(() => ensured.add(key)))))
        )
        return Effect.suspend(() => (ensured.has(key) ? Effect.void : Effect.ignore(onLane(create))))
      }, { discard: true })

    const inputsOf = (model: CompiledModel) =>
      Effect.gen(function* () {
        const inputs: Record<string, string> = {}
        for (const u of model.upstream) inputs[u] = versions.get(u) ?? "none"
        for (const ref of model.sourceRefs) inputs[`source:${ref}`] = yield* sourceVersionOf(ref)
        return inputs
      })

    const decide = (model: CompiledModel, fingerprint: string, inputs: Record<string, string>) =>
      Effect.gen(function* () {
        if (env.isBranch) return { kind: env.moved(model) ? "build" : "unchanged" } as Decision
        if (!reuse || env.moved(model)) return { kind: "build" } as Decision
        const s = model.strategy
        // An explicit window is a request to build it.
        if (s.type === "time_interval" && options.partition !== undefined) return { kind: "build" } as Decision
        const previous = states.get(model.name)
        if (previous === undefined || previous.fingerprint !== fingerprint) return { kind: "build" } as Decision
        // A table dropped behind pcli's back is built again (one catalog query per run, only when something could be reused).
        if (needsFullBuild(model, previous, fingerprint, yield* relations)) return { kind: "build" } as Decision
        if (sameInputs(previous!.inputs, inputs)) return { kind: "unchanged" } as Decision
        if (s.type !== "time_interval") return { kind: "build" } as Decision
        // Upstream data changed: rebuild only the intervals whose rows the SQL now yields differently.
        const now = yield* queryDigests(model).pipe(Effect.option)
        if (now._tag === "None") return { kind: "build" } as Decision
        const stale = staleIntervals(yield* store.intervalsOf(model.name), now.value)
        return stale.length === 0
          ? ({ kind: "unchanged" } as Decision)
          : ({ kind: "intervals", keys: stale, windows: contiguousWindows(stale, s.granularity) } as Decision)
      })

    const record = (name: string, model: CompiledModel, fields: Partial<ModelExecution> & Pick<ModelExecution, "status">) =>
      executions.push(executionRow(name, model, position.get(name) ?? 0, fields))

    /** A model that failed: the root of its downstream's skips. */
    const recordFailure = (name: string, model: CompiledModel, e: Exclude<BuildError, RunStoreFailed>, timing: Partial<ModelExecution>) => {
      status.set(name, "failed")
      rootFailure.set(name, name)
      record(name, model, { ...timing, status: "failed", error_code: e.code, error_class: classOf(e), error_message: e.message })
    }

    const runOne = (name: string) =>
      Effect.gen(function* () {
        const model = project.models.get(name)!
        if (yield* stopRequested) {
          status.set(name, "skipped")
          record(name, model, { status: "skipped", error_code: INTERRUPTED, error_message: interruptedMessage })
          return
        }
        const blocker = model.upstream.find((u) => status.get(u) === "failed" || status.get(u) === "skipped")
        if (blocker !== undefined) {
          const failedUpstream = rootFailure.get(blocker) ?? blocker
          status.set(name, "skipped")
          rootFailure.set(name, failedUpstream)
          record(name, model, {
            status: "skipped",
            error_code: UPSTREAM_FAILED,
            error_message: skippedMessage(failedUpstream),
            failed_upstream: failedUpstream
          })
          const n = yield* Ref.updateAndGet(done, (x) => x + 1)
          yield* emit({ kind: "skipped", model: name, because: failedUpstream, started: yield* Ref.updateAndGet(started, (x) => x + 1), done: n, total })
          return
        }
        const startedAt = yield* Clock.currentTimeMillis
        const fingerprint = fingerprintOf(model)
        const inputs = yield* inputsOf(model)
        const isInterval = model.strategy.type === "time_interval"
        const reusedRow = env.reusable(model)
        if (reusedRow !== undefined || (env.isBranch && !env.moved(model))) {
          // On a branch, a model the base (or an earlier branch run) already holds under this fingerprint is not built.
          // A base table dropped behind pcli's back fails this model (its downstream is skipped), not the whole run.
          const pointed = reusedRow === undefined ? undefined : yield* Effect.either(Effect.zipRight(ensureSchemaOf(model), onLane(env.pointAtBase(model, reusedRow))))
          if (pointed?._tag === "Left") {
            const e = pointed.left
            recordFailure(name, model, e, { started_at: iso(startedAt), finished_at: iso(yield* Clock.currentTimeMillis), duration_ms: 0 })
            const n = yield* Ref.updateAndGet(done, (x) => x + 1)
            yield* emit({ kind: "finished", model: name, status: "failed", strategy: model.strategy.type, duration_ms: 0, error: `[${e.code}] ${e.message}`, done: n, total })
            return
          }
          yield* env.settle(model, reusedRow)
          status.set(name, "unchanged")
          record(name, model, { status: "unchanged", intervals_built: isInterval ? 0 : null })
          const n = yield* Ref.updateAndGet(done, (x) => x + 1)
          yield* emit({ kind: "finished", model: name, status: "unchanged", strategy: model.strategy.type, duration_ms: 0, done: n, total })
          return
        }
        const decision = yield* decide(model, fingerprint, inputs)
        const previous = states.get(name)
        if (decision.kind === "unchanged" && previous !== undefined) {
          if (previous.output_hash !== null && previous.output_path !== null) {
            contentOutputs.set(name, { hash: previous.output_hash, filePath: previous.output_path, upstreamKey: targetKey(model.target) })
          }
          // Newer inputs that left the data as it was: remember them so the next run need not look again.
          if (!sameInputs(previous.inputs, inputs)) builds.push({ ...previous, inputs })
          status.set(name, "unchanged")
          const finishedAt = yield* Clock.currentTimeMillis
          record(name, model, {
            status: "unchanged",
            started_at: iso(startedAt),
            finished_at: iso(finishedAt),
            duration_ms: finishedAt - startedAt,
            sql_hash: previous.sql_hash,
            recipe_hash: previous.recipe_hash,
            intervals_built: isInterval ? 0 : null
          })
          const n = yield* Ref.updateAndGet(done, (x) => x + 1)
          const ordinal = yield* Ref.updateAndGet(started, (x) => x + 1)
          yield* emit({ kind: "finished", model: name, status: "unchanged", strategy: model.strategy.type, duration_ms: finishedAt - startedAt, started: ordinal, done: n, total })
          return
        }
        const ordinal = yield* Ref.updateAndGet(started, (x) => x + 1)
        yield* emit({ kind: "started", model: name, strategy: model.strategy.type, started: ordinal, done: yield* Ref.get(done), total })
        yield* ensureSchemaOf(model)
        const attempts = yield* Ref.make(0)
        const buildWith = (partition: PartitionOptions | undefined) =>
          onLane(buildModel({
            runId,
            model: env.isBranch ? { ...model, definition: { ...model.definition, sql: env.sqlFor(model, kind) } } : model,
            projectRoot: options.projectRoot,
            partition,
            contentOutputs,
            targetOf: (m) => project.models.get(m)?.target,
            physical: env.physical(model), publishView: env.publishView(model, kind),
            executable: env.executable(model, kind, (u) => status.get(u) === "success")
          }))
        const windows = decision.kind === "intervals" ? decision.windows : undefined
        const outcome = yield* Ref.update(attempts, (a) => a + 1).pipe(
          Effect.zipRight(windows === undefined ? buildWith(options.partition) : Effect.map(Effect.forEach(windows, buildWith), mergeResults)),
          (build) =>
            retryTransient(build, {
              policy: retry,
              subject: `model ${name}`,
              isTransient: (e: BuildError) => classOf(e) === "transient"
            }),
          (build) => withMemoryToGrow(build, `model ${name}`, { readsFiles: readsFiles(model.definition.sql) }),
          Effect.either
        )
        const finished = yield* Clock.currentTimeMillis
        const timing = {
          started_at: iso(startedAt),
          finished_at: iso(finished),
          duration_ms: finished - startedAt,
          attempts: yield* Ref.get(attempts)
        }
        if (outcome._tag === "Left" && outcome.left._tag === "RunStoreFailed") return yield* outcome.left
        let intervalsBuilt: number | null = null
        if (outcome._tag === "Right") {
          const r = outcome.right
          if (r.output !== undefined) contentOutputs.set(name, r.output)
          status.set(name, "success")
          yield* env.settle(model)
          const dataVersion = dataVersionOf(runId, r.output?.hash)
          const hashes = { sql_hash: sqlHash(r.sqlAsRun), recipe_hash: recipeHash(model, r.sqlAsRun) }
          versions.set(name, dataVersion)
          builds.push({
            ...hashes,
            model_name: name,
            fingerprint,
            data_version: dataVersion,
            inputs,
            run_id: runId,
            output_hash: r.output?.hash ?? null,
            output_path: r.output?.filePath ?? null,
            built_at: iso(finished),
            attributes: builtAttributesOf(model),
            files: filesOfDefinition(model.definition)
          })
          const table = env.physicalOf(model)
          if (table !== undefined) tables.push(physicalTableRow(model, table, env.fingerprints.get(name)!, builds[builds.length - 1]!, r.sqlAsRun))
          if (isInterval) {
            const digests = yield* tableDigests(model).pipe(Effect.option)
            const built = windows ?? (options.partition === undefined ? undefined : [options.partition])
            intervalsBuilt = built === undefined ? (digests._tag === "Some" ? digests.value.length : 0) : countIntervals(built, model)
            if (digests._tag === "Some") {
              // Only the intervals this run built are re-recorded: the others keep the digest of their own build.
              const rebuilt = decision.kind === "intervals" ? new Set(decision.keys) : undefined
              const kept = digests.value.filter((d) => rebuilt === undefined || rebuilt.has(d.key))
              const present = new Set(kept.map((d) => d.key))
              intervalChanges.push({
                model_name: name,
                replaceAll: rebuilt === undefined,
                removed: rebuilt === undefined ? [] : [...rebuilt].filter((k) => !present.has(k)),
                rows: kept.map((d) => ({ interval_key: d.key, fingerprint, row_count: d.row_count, checksum: d.checksum, run_id: runId }))
              })
            }
          }
          record(name, model, {
            ...timing,
            status: "success",
            rows_affected: r.rows,
            ...hashes,
            output_hash: r.output?.hash ?? null,
            warnings: r.warnings,
            intervals_built: intervalsBuilt
          })
        } else {
          recordFailure(name, model, outcome.left as Exclude<BuildError, RunStoreFailed>, timing)
        }
        const n = yield* Ref.updateAndGet(done, (x) => x + 1)
        yield* emit({
          kind: "finished",
          model: name,
          status: outcome._tag === "Right" ? "success" : "failed",
          strategy: model.strategy.type,
          duration_ms: finished - startedAt,
          ...(outcome._tag === "Right" ? { rows: outcome.right.rows } : { error: `[${outcome.left.code}] ${outcome.left.message}` }),
          ...(intervalsBuilt === null ? {} : { intervals: intervalsBuilt }),
          started: ordinal,
          done: n,
          total
        })
      })

    // A run that provably leaves every model as it was records it in one pass (the loop is its reference);
    // a stop asked on the way leaves the rest to the loop, which records them as not started.
    const everythingUnchanged = direct && !env.isBranch && env.settled(layers) && reusableByState(project, layers, options, states) && tablesPresent(project, layers, yield* relations)
    const passed = everythingUnchanged ? yield* unchangedExecutions(project, layers, states, emit, stopRequested) : []
    executions.push(...passed)
    yield* Ref.set(done, passed.length)
    for (const layer of withoutFirst(layers, passed.length)) {
      // As many models at once as there are lanes: a model starts (and says so) when it has one.
      yield* Effect.forEach(layer, runOne, { concurrency: options.concurrency ?? width, discard: true })
    }
    const finishedMillis = yield* Clock.currentTimeMillis
    const models = [...executions].sort((a, b) => a.position - b.position)
    const run: RunRecord = {
      run_id: runId,
      started_at: iso(startedMillis),
      finished_at: iso(finishedMillis),
      status: runStatusOf(models),
      trigger: options.trigger ?? "manual",
      partition_from: options.partition?.from ?? null,
      partition_to: options.partition?.to ?? null,
      models
    }
    // A branch's builds leave production's incremental state alone: only its view targets are recorded.
    yield* store.recordRun(run, options.planId, {
      builds: env.isBranch ? [] : builds,
      intervals: env.isBranch ? [] : intervalChanges,
      physicalBuilds: env.keptBuilds(builds, intervalChanges),
      tables,
      environment: { name: env.name, models: env.changes }
    })
    return run
  }).pipe(Effect.scoped)

/** Runs compiled projects on the `Warehouse` in context. */
export interface PipelineRunnerService {
  readonly run: (project: CompiledProject, options: RunOptions) => Effect.Effect<RunRecord, RunStoreFailed | SelectionError>
}

export class PipelineRunner extends Context.Tag("pcli/PipelineRunner")<PipelineRunner, PipelineRunnerService>() {}

export const layer: Layer.Layer<
  PipelineRunner,
  never,
  Warehouse | RunStore | FileSystem.FileSystem | Path.Path
> = Layer.effect(
  PipelineRunner,
  Effect.map(Effect.context<Warehouse | RunStore | FileSystem.FileSystem | Path.Path>(), (context) => ({
    run: (project: CompiledProject, options: RunOptions) => runProject(project, options).pipe(Effect.provide(context))
  }))
)
