// Loaded only when compile, run or playground runs: the engine stays off the start-up path.
import { Path } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { CompileOutput, RunOutput } from "../schemas/pipeline"
import { Environment } from "../services/Environment/Environment"
import * as Compiler from "../services/Project/compile"
import { compileOutput, renderCompileText, renderRunText, runExitCode, runOutput } from "../services/Runner/output"
import { writePlayground } from "../commands/playground"
import * as Runner from "../services/Runner/run"
import type { ProgressEvent } from "../services/Runner/run"
import * as RunStore from "../services/Runner/RunStore"
import { UsageError } from "./exit"
import { setExitCode } from "./exitCode"
import { ProjectContext, stateLayer, withProject } from "./context"
import type { CommonOptions } from "./options"
import { emit, writeStderr, writeStdout } from "./render"
import { warehouseLayer } from "./warehouseTarget"

const compileProject = Effect.gen(function* () {
  const { modelsDir } = yield* ProjectContext
  const compiler = yield* Compiler.PipelineCompiler
  return yield* compiler.compile({ modelsDir, env: yield* Environment })
})

export const runCompile = (opts: CommonOptions) =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const project = yield* compileProject
    yield* emit(opts.output, CompileOutput, compileOutput(project, modelsDir), renderCompileText)
  }).pipe(withProject(opts, Compiler.layer))

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
    if (Option.isSome(opts.from) !== Option.isSome(opts.to)) {
      return yield* new UsageError({ detail: "--from and --to go together: give both or neither" })
    }
    const project = yield* compileProject
    const { root } = yield* ProjectContext
    const runner = yield* Runner.PipelineRunner
    const live = opts.output === "text" && process.stderr.isTTY === true
    const record = yield* runner.run(project, {
      projectRoot: root,
      ...(opts.model.length > 0 ? { models: opts.model } : {}),
      ...(Option.isSome(opts.from) && Option.isSome(opts.to) ? { partition: { from: opts.from.value, to: opts.to.value } } : {}),
      onProgress: progressLine(live)
    })
    if (live) yield* writeStderr("\r\x1b[2K")
    const out = runOutput(record)
    yield* emit(opts.output, RunOutput, out, renderRunText)
    yield* setExitCode(runExitCode(out.status))
  }).pipe(
    withProject(
      opts,
      Layer.mergeAll(Compiler.layer, Runner.layer).pipe(
        Layer.provideMerge(RunStore.layer),
        Layer.provideMerge(warehouseLayer(opts.target)),
        Layer.provideMerge(stateLayer("write"))
      )
    )
  )

export const runPlayground = (opts: CommonOptions & { readonly dir: string }) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const dir = path.resolve(opts.dir)
    const files = yield* writePlayground(dir)
    const config = path.join(opts.dir, "pcli.toml")
    yield* writeStdout(
      opts.output === "json"
        ? `${JSON.stringify({ command: "playground", dir, files }, null, 2)}\n`
        : `Wrote a sample project to ${dir} (${files.length} files). Next:\n  pcli compile --config ${config}\n  pcli run --config ${config}\n`
    )
  })
