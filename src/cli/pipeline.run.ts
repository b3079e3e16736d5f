// Loaded only when compile, run or playground runs: the engine stays off the start-up path.
import { Effect, Option } from "effect"
import { compile } from "../commands/compile"
import { playground } from "../commands/playground"
import { runModels } from "../commands/runModels"
import { BareLayer } from "../layers/ProjectLayer"
import { CompileLayer, RunLayer } from "../layers/RunLayer"
import { ReportedFailure } from "../render/errors"
import { PlaygroundOutput } from "../schemas/playground"
import { CompileOutput, RunOutput } from "../schemas/pipeline"
import { renderCompileText, renderRunText } from "../services/Runner/output"
import type { ProgressEvent } from "../services/Runner/run"
import { type CommonOptions, globalOptions } from "./options"
import { emit, liveProgress, writeStderr } from "./output"

export const runCompile = (opts: CommonOptions) =>
  Effect.flatMap(compile, (out) => emit(opts.output, CompileOutput, out, renderCompileText)).pipe(
    Effect.provide(CompileLayer(globalOptions(opts)))
  )

/** A live line on a TTY; nothing when piped or in JSON mode. */
const progressLine = (enabled: boolean) => (event: ProgressEvent) => {
  if (!enabled) return Effect.void
  const text =
    event.kind === "started"
      ? `running ${event.model}`
      : event.kind === "finished"
        ? `${event.status === "success" ? "done" : "FAILED"} ${event.model} (${event.duration_ms} ms)`
        : `skipped ${event.model}`
  const line = `[${event.done}/${event.total}] ${text}`
  return writeStderr(`\r\x1b[2K${line.slice(0, (process.stderr.columns ?? 100) - 1)}`)
}

export interface RunOptions extends CommonOptions {
  readonly model: ReadonlyArray<string>
  readonly from: Option.Option<string>
  readonly to: Option.Option<string>
  readonly target: Option.Option<string>
}

export const runRun = (opts: RunOptions) =>
  Effect.gen(function* () {
    const live = liveProgress(opts.output)
    const out = yield* runModels({
      models: opts.model,
      from: Option.getOrUndefined(opts.from),
      to: Option.getOrUndefined(opts.to),
      onProgress: progressLine(live)
    })
    if (live) yield* writeStderr("\r\x1b[2K")
    yield* emit(opts.output, RunOutput, out, renderRunText)
    if (out.status !== "success") {
      const failed = out.models.filter((m) => m.status !== "success").length
      return yield* new ReportedFailure({ code: "run-failed", detail: `${failed} of ${out.models.length} models did not build` })
    }
  }).pipe(Effect.provide(RunLayer(globalOptions(opts), Option.getOrUndefined(opts.target))))

export const runPlayground = (opts: CommonOptions & { readonly dir: string }) =>
  Effect.gen(function* () {
    const out = yield* playground({ dir: opts.dir, cwd: process.cwd() })
    const config = `${opts.dir.replace(/\/+$/, "")}/pcli.toml`
    yield* emit(
      opts.output,
      PlaygroundOutput,
      out,
      (o) => `Wrote a sample project to ${o.dir} (${o.files.length} files). Next:\n  pcli compile --config ${config}\n  pcli run --config ${config}\n`
    )
  }).pipe(Effect.provide(BareLayer(globalOptions(opts))))
