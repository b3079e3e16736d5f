// Loaded only when `pcli test` runs: the warehouse is opened, nothing is built.
import { Effect } from "effect"
import { recordFreshnessChecks } from "../commands/freshness"
import { testFailure, testModels } from "../commands/testModels"
import * as commandLayer from "../layers/commandLayers"
import { ReportedFailure } from "../render/errors"
import { testText } from "../render/text/inspect"
import { TestOutput } from "../schemas/inspect"
import { type CommonOptions, globalOptions } from "./globalOptions"
import { emit } from "./output"

export const runTest = (opts: CommonOptions & { readonly select: ReadonlyArray<string> }) =>
  Effect.gen(function* () {
    const out = yield* testModels(opts.select)
    // The store is opened (write) only when a check ran: looking at a project never built creates nothing.
    if (out.freshness !== undefined) yield* recordFreshnessChecks(out.freshness).pipe(Effect.provide(commandLayer.testRecord))
    yield* emit(opts.output, TestOutput, out, testText)
    const failure = testFailure(out)
    if (failure !== undefined) return yield* new ReportedFailure({ code: "tests-failed", detail: failure })
  }).pipe(Effect.provide(commandLayer.test(globalOptions(opts))))
