// Loaded only when compile, run or playground runs: the engine stays off the start-up path.
import { Effect, Option } from "effect"
import { playground } from "../commands/playground"
import { productCompile } from "../commands/productCompile"
import { runModels } from "../commands/runModels"
import { selectedModels } from "../commands/selectedModels"
import * as commandLayer from "../layers/commandLayers"
import { ReportedFailure, RunInterrupted } from "../render/errors"
import { liveProgressText, progressText } from "../render/text/progress"
import { PlaygroundOutput } from "../schemas/playground"
import { RunOutput } from "../schemas/pipeline"
import { renderRunText } from "../render/text/pipeline"
import type { ProgressEvent } from "../schemas/progress"
import { type CommonOptions, globalOptions } from "./options"
import { emit, writeStderr } from "./output"

export { runCompile } from "./compile.run"

/** A live line on a terminal; off one, a line per model start and finish (CI logs). Always on stderr. */
const progressReporter = (live: boolean) => (event: ProgressEvent) =>
  live
    ? writeStderr(`\r\x1b[2K${liveProgressText(event).slice(0, (process.stderr.columns ?? 100) - 1)}`)
    : writeStderr(`${progressText(event)}\n`)

/**
 * Ctrl-C asks the run to stop after the models in flight (their statements are not cut off);
 * a second Ctrl-C ends the process at once.
 */
const stopOnInterrupt = Effect.acquireRelease(
  Effect.sync(() => {
    let asked = false
    const onSigint = () => {
      if (asked) process.exit(130)
      asked = true
      process.stderr.write("\ninterrupt: finishing the models in flight, then stopping (Ctrl-C again to abort now)\n")
    }
    process.on("SIGINT", onSigint)
    return { onSigint, requested: Effect.sync(() => asked) }
  }),
  ({ onSigint }) => Effect.sync(() => void process.off("SIGINT", onSigint))
)

export interface RunOptions extends CommonOptions {
  readonly model: ReadonlyArray<string>
  readonly select: ReadonlyArray<string>
  readonly from: Option.Option<string>
  readonly to: Option.Option<string>
  readonly target: Option.Option<string>
  readonly fullRefresh: boolean
  readonly branch: Option.Option<string>
}

export const runRun = (opts: RunOptions) =>
  Effect.scoped(
    Effect.gen(function* () {
      const live = process.stderr.isTTY === true
      const stop = yield* stopOnInterrupt
      const out = yield* runModels({
        models: yield* selectedModels(opts.model, opts.select),
        from: Option.getOrUndefined(opts.from),
        to: Option.getOrUndefined(opts.to),
        fullRefresh: opts.fullRefresh,
        branch: Option.getOrUndefined(opts.branch),
        stopRequested: stop.requested,
        onProgress: progressReporter(live)
      })
      if (live) yield* writeStderr("\r\x1b[2K")
      yield* emit(opts.output, RunOutput, out, renderRunText)
      if (out.status === "interrupted") {
        const notStarted = out.models.filter((m) => m.status === "skipped" && m.failed_upstream === undefined).length
        return yield* new RunInterrupted({ runId: out.run_id, notStarted })
      }
      if (out.status !== "success") {
        const failed = out.models.filter((m) => m.status !== "success" && m.status !== "unchanged").length
        return yield* new ReportedFailure({ code: "run-failed", detail: `${failed} of ${out.models.length} models did not build` })
      }
    })
  ).pipe(Effect.provide(commandLayer.run(globalOptions(opts), Option.getOrUndefined(opts.target))))

/** The tour as text: numbered steps, each command on a `$ ` line to paste into a POSIX shell. */
const playgroundText = (o: PlaygroundOutput) =>
  [
    `Wrote a sample project to ${o.dir} (${o.files.length} files) and committed it (git ${o.commit.slice(0, 12)}).`,
    "A tour of what pcli is for, in a POSIX shell from this directory:",
    "",
    ...o.tour.flatMap((step, i) => [`${i + 1}. ${step.title}`, ...step.commands.map((c) => `   $ ${c}`), ""])
  ].join("\n")

export const runPlayground = (opts: CommonOptions & { readonly dir: string }) =>
  Effect.gen(function* () {
    const global = globalOptions(opts)
    // The product is lowered as `pcli product compile` would, in the project just written.
    const lowerProduct = (root: string, product: string) =>
      productCompile({ name: product }).pipe(
        Effect.provide(commandLayer.productWrite({ ...global, cwd: root, config: `${root}/pcli.toml`, models: undefined, statePath: undefined, stateNamespace: undefined }))
      )
    const out = yield* playground({ dir: opts.dir, cwd: process.cwd() }, lowerProduct)
    yield* emit(opts.output, PlaygroundOutput, out, playgroundText)
  }).pipe(Effect.provide(commandLayer.playground(globalOptions(opts))))
