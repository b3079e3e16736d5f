import { Command } from "@effect/cli"
import { Effect } from "effect"
import { ValidateOutput } from "../schemas/validate"
import { renderValidateText, validateProject } from "../services/Validate/Validate"
import { configLayer, withPrincipal } from "./context"
import { setExitCode } from "./exitCode"
import { commonOptions } from "./options"
import { emit } from "./render"

export const validateCommand = Command.make("validate", commonOptions, (opts) =>
  Effect.gen(function* () {
    const out = yield* validateProject
    yield* emit(opts.output, ValidateOutput, out, renderValidateText)
    if (!out.ok) yield* setExitCode(1)
  }).pipe((body) => withPrincipal(opts, body), Effect.provide(configLayer(opts)))
).pipe(Command.withDescription("Check pcli.toml offline: warehouse authentication, products/"))
