import { Command } from "@effect/cli"
import { Effect } from "effect"
import { commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./validate.run"))

export const validateCommand = Command.make("validate", commonOptions, (opts) => Effect.flatMap(impl, (m) => m.runValidate(opts))).pipe(
  Command.withDescription(
    described(
      "Check pcli.toml offline: adapters, warehouse credentials, [gc] settings and the product specs in products/",
      "pcli validate --output json"
    )
  )
)
