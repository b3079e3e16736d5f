import { Effect } from "effect"
import type { HistoryListOutput, HistoryRun, HistoryRunOutput } from "../schemas/history"
import type { RunRecord } from "../schemas/pipeline"
import { RunNotFound, RunStore, type RunSummaryRow } from "../services/Runner/RunStore"
import { runOutput } from "../services/Runner/output"
import { InvalidFlagValue, UsageError } from "./errors"

export interface HistoryInput {
  /** One run in full; conflicts with `last` and `model`. */
  readonly runId?: string | undefined
  readonly last?: number | undefined
  readonly model?: string | undefined
}

const DEFAULT_LAST = 20

const durationOf = (startedAt: string, finishedAt: string) => Math.max(0, Date.parse(finishedAt) - Date.parse(startedAt))

const historyRun = (r: RunSummaryRow): HistoryRun => ({
  run_id: r.run_id,
  status: r.status,
  trigger: r.trigger,
  started_at: r.started_at,
  finished_at: r.finished_at,
  duration_ms: durationOf(r.started_at, r.finished_at),
  models_total: r.models_total,
  models_built: r.models_total - r.models_failed - r.models_skipped - r.models_unchanged,
  models_unchanged: r.models_unchanged,
  models_failed: r.models_failed,
  models_skipped: r.models_skipped,
  retries: r.retries
})

const summaryOf = (run: RunRecord): RunSummaryRow => ({
  run_id: run.run_id,
  started_at: run.started_at,
  finished_at: run.finished_at,
  status: run.status,
  trigger: run.trigger,
  models_total: run.models.length,
  models_failed: run.models.filter((m) => m.status === "failed").length,
  models_skipped: run.models.filter((m) => m.status === "skipped").length,
  models_unchanged: run.models.filter((m) => m.status === "unchanged").length,
  retries: run.models.reduce((n, m) => n + Math.max(0, m.attempts - 1), 0)
})

/** `pcli history`: recorded runs, newest first (read-only). */
export const historyList = (input: HistoryInput) =>
  Effect.gen(function* () {
    const last = input.last ?? DEFAULT_LAST
    if (!Number.isInteger(last) || last < 1) return yield* new InvalidFlagValue({ flag: "--last", detail: `--last must be a positive integer, got ${last}` })
    const store = yield* RunStore
    const rows = yield* store.listRuns({ last, model: input.model })
    const out: HistoryListOutput = {
      command: "history",
      runs: rows.map((r) => ({
        ...historyRun(r),
        ...(r.model === undefined || input.model === undefined
          ? {}
          : {
              model: {
                name: input.model,
                status: r.model.status,
                ...(r.model.duration_ms === null ? {} : { duration_ms: r.model.duration_ms }),
                ...(r.model.rows_affected === null ? {} : { rows_affected: r.model.rows_affected }),
                attempts: r.model.attempts
              }
            })
      }))
    }
    return out
  })

/** `pcli history <run_id>`: one run with every model's outcome, timings and attempts. */
export const historyRunDetail = (runId: string) =>
  Effect.gen(function* () {
    const store = yield* RunStore
    const run = yield* store.getRun(runId)
    if (run === undefined) return yield* new RunNotFound({ runId })
    const report = runOutput(run)
    const out: HistoryRunOutput = {
      command: "history",
      run: historyRun(summaryOf(run)),
      ...(run.partition_from === null ? {} : { partition_from: run.partition_from }),
      ...(run.partition_to === null ? {} : { partition_to: run.partition_to }),
      models: report.models.map((m, i) => {
        const stored = run.models[i]!
        return {
          ...m,
          ...(stored.started_at === null ? {} : { started_at: stored.started_at }),
          ...(stored.finished_at === null ? {} : { finished_at: stored.finished_at })
        }
      })
    }
    return out
  })

/** Either form, by input: a run id conflicts with the list's filters. */
export const history = (input: HistoryInput) =>
  input.runId === undefined
    ? historyList(input)
    : input.last !== undefined || input.model !== undefined
      ? Effect.fail(new UsageError({ detail: `history ${input.runId} shows one run: drop ${input.last !== undefined ? "--last" : "--model"}` }))
      : historyRunDetail(input.runId)
