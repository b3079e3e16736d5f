import { Args, Command, Options } from "@effect/cli"
import { Path } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { CompileOutput, RunOutput } from "../schemas/pipeline"
import { Environment } from "../services/Environment/Environment"
import * as Compiler from "../services/Pipeline/compile"
import { compileOutput, renderCompileText, renderRunText, runExitCode, runOutput } from "../services/Pipeline/output"
import { writePlayground } from "../services/Pipeline/playground"
import * as Runner from "../services/Pipeline/run"
import type { ProgressEvent } from "../services/Pipeline/run"
import * as RunStore from "../services/Pipeline/RunStore"
import { UsageError } from "./exit"
import { setExitCode } from "./exitCode"
import { ProjectContext, stateLayer, withPrincipal, withProject } from "./context"
import { commonOptions } from "./options"
import { emit, writeStderr, writeStdout } from "./render"
import { warehouseLayer } from "./warehouseTarget"

const compileProject = Effect.gen(function* () {
  const { modelsDir } = yield* ProjectContext
  const compiler = yield* Compiler.PipelineCompiler
  return yield* compiler.compile({ modelsDir, env: yield* Environment })
})

const compileCommand = Command.make("compile", commonOptions, (opts) =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const project = yield* compileProject
    yield* emit(opts.output, CompileOutput, compileOutput(project, modelsDir), renderCompileText)
  }).pipe((body) => withPrincipal(opts, body), withProject(opts, Compiler.layer))
).pipe(Command.withDescription("Parse every model, resolve dependencies with DuckDB's parser, order and layer them"))

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

const runCommand = Command.make(
  "run",
  {
    ...commonOptions,
    model: Options.text("model").pipe(Options.repeated, Options.withDescription("Run only these models (repeatable)")),
    from: Options.text("from").pipe(Options.optional, Options.withDescription("Partition window start key (needs --to)")),
    to: Options.text("to").pipe(Options.optional, Options.withDescription("Partition window end key (needs --from)")),
    target: Options.text("target").pipe(Options.optional, Options.withDescription("Adapter to run on (default: the warehouse adapter, else embedded)"))
  },
  (opts) =>
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
      (body) => withPrincipal(opts, body),
      withProject(
        opts,
        Layer.mergeAll(Compiler.layer, Runner.layer).pipe(
          Layer.provideMerge(RunStore.layer),
          Layer.provideMerge(warehouseLayer(opts.target)),
          Layer.provideMerge(stateLayer("write"))
        )
      )
    )
).pipe(
  Command.withDescription(
    "Build every model in layer order on the target. Exit codes: 0 every model succeeded, 1 the run failed, 3 partial failure (some models failed or were skipped, others succeeded)"
  )
)

const playgroundCommand = Command.make(
  "playground",
  { ...commonOptions, dir: Args.text({ name: "dir" }).pipe(Args.withDescription("Directory to create (must be empty or absent)")) },
  (opts) =>
    Effect.gen(function* () {
      const path = yield* Path.Path
      const dir = path.resolve(opts.dir)
      const files = yield* writePlayground(dir)
      yield* writeStdout(
        opts.output === "json"
          ? `${JSON.stringify({ command: "playground", dir, files }, null, 2)}\n`
          : `Wrote a sample project to ${dir} (${files.length} files). Next:\n  pcli compile --config ${path.join(opts.dir, "pcli.toml")}\n  pcli run --config ${path.join(opts.dir, "pcli.toml")}\n`
      )
    }).pipe((body) => withPrincipal(opts, body))
).pipe(Command.withDescription("Write a small, realistic project (raw → staging → mart) that runs with no credentials"))

export const pipelineCommands = [compileCommand, runCommand, playgroundCommand] as const
