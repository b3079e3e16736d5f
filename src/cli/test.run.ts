// Loaded only when `pcli test` runs: the warehouse is opened, nothing is built.
import { Effect } from "effect"
import { testModels } from "../commands/testModels"
import * as commandLayer from "../layers/commandLayers"
import { ReportedFailure } from "../render/errors"
import { testText } from "../render/text/inspect"
import { TestOutput } from "../schemas/inspect"
import { type CommonOptions, globalOptions } from "./globalOptions"
import { emit } from "./output"

export const runTest = (opts: CommonOptions & { readonly select: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    const out = yield* testModels(opts.select)
    yield* emit(opts.output, TestOutput, out, testText)
    const errorTests = out.models.filter((m) => m.status !== "not_built").flatMap((m) => m.tests).filter((t) => t.severity === "error" && (t.status === "fail" || t.status === "error")).length
    if (errorTests > 0 || out.not_built > 0) {
      const parts = [errorTests > 0 ? `${errorTests} error-severity test(s) failed or could not run` : "", out.not_built > 0 ? `${out.not_built} model(s) not built` : ""].filter((p) => p !== "")
      return yield* new ReportedFailure({ code: "tests-failed", detail: parts.join("; ") })
    }
  }).pipe(Effect.provide(commandLayer.test(globalOptions(opts))))
