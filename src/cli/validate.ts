import { Command } from "@effect/cli"
import { Effect } from "effect"
import { validate } from "../commands/validate"
import { ConfigLayer } from "../layers/ProjectLayer"
import { ReportedFailure } from "../render/errors"
import { ValidateOutput } from "../schemas/validate"
import { renderValidateText } from "../render/text/validate"
import { commonOptions, globalOptions } from "./options"
import { emit } from "./output"
import { described } from "./help"

export const validateCommand = Command.make("validate", commonOptions, (opts) =>
  Effect.gen(function* () {
    const out = yield* validate
    yield* emit(opts.output, ValidateOutput, out, renderValidateText)
    if (!out.ok) return yield* new ReportedFailure({ code: "validate-failed", detail: `${out.errors} error(s) in ${out.config_path}` })
  }).pipe(Effect.provide(ConfigLayer(globalOptions(opts))))
).pipe(
  Command.withDescription(
    described(
      "Check pcli.toml offline: adapters, warehouse credentials, [gc] settings and the product specs in products/",
      "pcli validate --output json"
    )
  )
)
