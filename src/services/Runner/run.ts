import type { FileSystem, Path } from "@effect/platform"
import { Clock, Context, Effect, Layer, Ref } from "effect"
import type { ErrorClass, ModelExecution, ModelRunStatus, RunRecord, RunStatus } from "../../schemas/pipeline"
import { defaultRetryPolicy, type RetryPolicy, retryTransient } from "../Warehouse/retry"
import type { Warehouse } from "../Warehouse/Warehouse"
import type { CompiledProject } from "../Project/compile"
import { RunStore, type RunStoreFailed, skippedMessage, UPSTREAM_FAILED } from "./RunStore"
import { checkSelection, type SelectionError } from "./selection"
import {
  ensureSchemas,
  type BuildError,
  buildModel,
  type ContentOutput,
  type PartitionOptions,
  recipeHash,
  sqlHash
} from "./strategies"

/** Per-model progress, for a live line on a TTY; services never print. */
export type ProgressEvent =
  | { readonly kind: "started"; readonly model: string; readonly done: number; readonly total: number }
  | {
      readonly kind: "finished"
      readonly model: string
      readonly status: "success" | "failed"
      readonly duration_ms: number
      readonly done: number
      readonly total: number
    }
  | { readonly kind: "skipped"; readonly model: string; readonly because: string; readonly done: number; readonly total: number }

export interface RunOptions {
  /** Directory project-relative `storage_prefix`es resolve against. */
  readonly projectRoot: string
  /** A `--from/--to` window: checked against the selected time_interval models before any work. */
  readonly partition?: PartitionOptions
  /**
   * Run only these models, in project order (backfill); upstreams outside the set impose nothing.
   * An unknown name fails the run with `ModelsNotFound` before any work.
   */
  readonly models?: ReadonlyArray<string>
  readonly trigger?: string
  /** The plan `pcli apply` is executing: stored on the run for the custody chain. */
  readonly planId?: string
  /** Models of one layer run at most this many at once (default: all). */
  readonly concurrency?: number
  /** Retries of a model whose build failed transiently; each retry is logged at WARN (see `retryTransient`). */
  readonly retry?: RetryPolicy
  readonly onProgress?: (event: ProgressEvent) => Effect.Effect<void>
  /** Fixed run id (tests); otherwise minted from the clock as `run-YYYYMMDD-HHMMSS-mmm`. */
  readonly runId?: string
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0")

export const mintRunId = (millis: number): string => {
  const d = new Date(millis)
  return `run-${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}-${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}-${pad(d.getUTCMilliseconds(), 3)}`
}

/** success: nothing failed or was skipped; failure: nothing succeeded; partial_failure otherwise. */
export const runStatusOf = (models: ReadonlyArray<{ readonly status: ModelRunStatus }>): RunStatus => {
  const ok = models.filter((m) => m.status === "success").length
  if (ok === models.length) return "success"
  return ok === 0 ? "failure" : "partial_failure"
}

const classOf = (error: BuildError): ErrorClass =>
  error._tag === "StatementFailed" && error.transient ? "transient" : "permanent"

const iso = (millis: number) => new Date(millis).toISOString()

/**
 * Runs the compiled project: layer by layer, models of a layer concurrently; transient
 * warehouse failures retried with jittered exponential backoff (the only retry layer); a failed
 * model's downstream closure is skipped while everything else still runs. The selection and
 * window are checked first, before any statement. Records the run in the state store.
 */
export const runProject = (
  project: CompiledProject,
  options: RunOptions
): Effect.Effect<
  RunRecord,
  RunStoreFailed | SelectionError,
  Warehouse | RunStore | FileSystem.FileSystem | Path.Path
> =>
  Effect.gen(function* () {
    const { layers } = yield* checkSelection(project, options)
    const store = yield* RunStore
    const startedMillis = yield* Clock.currentTimeMillis
    const runId = options.runId ?? mintRunId(startedMillis)
    const total = layers.reduce((n, l) => n + l.length, 0)
    const position = new Map(layers.flat().map((m, i) => [m, i]))
    const retry = options.retry ?? defaultRetryPolicy
    const emit = options.onProgress ?? (() => Effect.void)
    const done = yield* Ref.make(0)
    const status = new Map<string, ModelRunStatus>()
    /** For each failed or skipped model, the failed model at the root of it. */
    const rootFailure = new Map<string, string>()
    const contentOutputs = new Map<string, ContentOutput>()
    const executions: Array<ModelExecution> = []

    const runOne = (name: string) =>
      Effect.gen(function* () {
        const model = project.models.get(name)!
        const baseSql = model.definition.sql
        const blocker = model.upstream.find((u) => status.get(u) === "failed" || status.get(u) === "skipped")
        if (blocker !== undefined) {
          const failedUpstream = rootFailure.get(blocker) ?? blocker
          status.set(name, "skipped")
          rootFailure.set(name, failedUpstream)
          executions.push({
            model_name: name,
            position: position.get(name) ?? 0,
            status: "skipped",
            strategy: model.strategy.type,
            started_at: null,
            finished_at: null,
            duration_ms: null,
            rows_affected: null,
            attempts: 0,
            sql_hash: sqlHash(baseSql),
            recipe_hash: recipeHash(model, baseSql),
            output_hash: null,
            error_code: UPSTREAM_FAILED,
            error_class: null,
            error_message: skippedMessage(failedUpstream),
            failed_upstream: failedUpstream,
            warnings: []
          })
          const n = yield* Ref.updateAndGet(done, (x) => x + 1)
          yield* emit({ kind: "skipped", model: name, because: failedUpstream, done: n, total })
          return
        }
        yield* emit({ kind: "started", model: name, done: yield* Ref.get(done), total })
        const attempts = yield* Ref.make(0)
        const started = yield* Clock.currentTimeMillis
        const outcome = yield* Ref.update(attempts, (a) => a + 1).pipe(
          Effect.zipRight(
            buildModel({
              runId,
              model,
              projectRoot: options.projectRoot,
              partition: options.partition,
              contentOutputs,
              targetOf: (m) => project.models.get(m)?.target
            })
          ),
          (build) =>
            retryTransient(build, {
              policy: retry,
              subject: `model ${name}`,
              isTransient: (e: BuildError) => classOf(e) === "transient"
            }),
          Effect.either
        )
        const finished = yield* Clock.currentTimeMillis
        const tries = yield* Ref.get(attempts)
        const base = {
          model_name: name,
          position: position.get(name) ?? 0,
          strategy: model.strategy.type,
          started_at: iso(started),
          finished_at: iso(finished),
          duration_ms: finished - started,
          attempts: tries
        }
        if (outcome._tag === "Right") {
          const r = outcome.right
          if (r.output !== undefined) contentOutputs.set(name, r.output)
          status.set(name, "success")
          executions.push({
            ...base,
            status: "success",
            rows_affected: r.rows,
            sql_hash: sqlHash(r.sqlAsRun),
            recipe_hash: recipeHash(model, r.sqlAsRun),
            output_hash: r.output?.hash ?? null,
            error_code: null,
            error_class: null,
            error_message: null,
            failed_upstream: null,
            warnings: r.warnings
          })
        } else {
          const e = outcome.left
          if (e._tag === "RunStoreFailed") return yield* e
          status.set(name, "failed")
          rootFailure.set(name, name)
          executions.push({
            ...base,
            status: "failed",
            rows_affected: null,
            sql_hash: sqlHash(baseSql),
            recipe_hash: recipeHash(model, baseSql),
            output_hash: null,
            error_code: e.code,
            error_class: classOf(e),
            error_message: e.message,
            failed_upstream: null,
            warnings: []
          })
        }
        const n = yield* Ref.updateAndGet(done, (x) => x + 1)
        yield* emit({
          kind: "finished",
          model: name,
          status: outcome._tag === "Right" ? "success" : "failed",
          duration_ms: finished - started,
          done: n,
          total
        })
      })

    for (const layer of layers) {
      yield* ensureSchemas(layer.flatMap((name) => project.models.get(name) ?? []))
      yield* Effect.forEach(layer, runOne, { concurrency: options.concurrency ?? "unbounded", discard: true })
    }
    const finishedMillis = yield* Clock.currentTimeMillis
    const models = [...executions].sort((a, b) => a.position - b.position)
    const record: RunRecord = {
      run_id: runId,
      started_at: iso(startedMillis),
      finished_at: iso(finishedMillis),
      status: runStatusOf(models),
      trigger: options.trigger ?? "manual",
      partition_from: options.partition?.from ?? null,
      partition_to: options.partition?.to ?? null,
      models
    }
    yield* store.recordRun(record, options.planId)
    return record
  })

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
