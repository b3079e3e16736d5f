// Loaded only when `pcli validate` runs: config validation stays off the start-up path.
import { Effect } from "effect"
import { validate } from "../commands/validate"
import { validateLayer } from "../layers/lightCommandLayers"
import { ReportedFailure } from "../render/errors"
import { renderValidateText } from "../render/text/validate"
import { ValidateOutput } from "../schemas/validate"
import { type CommonOptions, globalOptions } from "./globalOptions"
import { emit } from "./output"

export const runValidate = (opts: CommonOptions) =>
  Effect.gen(function* () {
    const out = yield* validate
    yield* emit(opts.output, ValidateOutput, out, renderValidateText)
    if (!out.ok) return yield* new ReportedFailure({ code: "validate-failed", detail: `${out.errors} error(s) in ${out.config_path}` })
  }).pipe(Effect.provide(validateLayer(globalOptions(opts))))
