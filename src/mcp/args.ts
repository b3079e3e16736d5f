import { Schema } from "effect"
import { CAPABILITIES } from "../schemas/policy"

/** Argument schemas shared by the tools; each names its field in an invalid-params error. */
export const NoArgs = Schema.Struct({})

export const ModelName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/),
  Schema.annotations({ description: "A model name: letters, digits and underscores (models/<name>.sql)" })
)

export const ModelArg = Schema.Struct({ model: ModelName })

export const PrincipalArg = Schema.Literal("human", "agent")

export const CapabilityArg = Schema.Literal(...CAPABILITIES)

export const GitRef = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(256),
  Schema.annotations({ description: "A git ref or commit, e.g. HEAD or main" })
)
