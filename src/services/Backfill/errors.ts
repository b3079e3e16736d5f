import { Data } from "effect"

/** `pcli backfill` with neither `--model` nor `--from-last-run`. */
export class BackfillNothingToDo extends Data.TaggedError("BackfillNothingToDo")<{}> {
  readonly code = "backfill-nothing"
  override get message() {
    return "nothing to backfill: name models with --model, or seed from the last run with --from-last-run"
  }
}

/** `--from-last-run` found no run, or the latest run has no failed model to seed from. */
export class BackfillNoFailedRun extends Data.TaggedError("BackfillNoFailedRun")<{ readonly runId: string | null }> {
  readonly code = "backfill-no-failed-models"
  override get message() {
    return this.runId === null
      ? "--from-last-run: no run is recorded in the state store"
      : `--from-last-run: the latest run ${this.runId} has no failed models`
  }
}
