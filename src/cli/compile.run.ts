// Loaded only when `pcli compile` runs (by the full bundle's pipeline.run.ts and by the light entry light/compile.ts).
import { Effect } from "effect"
import { compileEncoded } from "../commands/compile"
import { compileLayer } from "../layers/lightCommandLayers"
import { compileOutputJson } from "../render/json"
import { renderCompileText } from "../render/text/pipeline"
import { CompileOutput } from "../schemas/pipeline"
import { type CommonOptions, globalOptions } from "./globalOptions"
import { emit, writeStdout } from "./output"

export const runCompile = (opts: CommonOptions) =>
  Effect.flatMap(compileEncoded(compileOutputJson), (json) =>
    // The text rendering reads the same value: the JSON is the output's Schema encoding, which is the value itself.
    opts.output === "json"
      ? writeStdout(json)
      : emit(opts.output, CompileOutput, JSON.parse(typeof json === "string" ? json : new TextDecoder().decode(json)) as CompileOutput, renderCompileText)
  ).pipe(Effect.provide(compileLayer(globalOptions(opts))))
