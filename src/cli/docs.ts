import { Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { REFERENCE_NAMES } from "../schemas/referenceNames"
import { commonOptions } from "./options"
import { described } from "./help"

const impl = Effect.promise(() => import("./docs.run"))

const referenceCommand = Command.make(
  "reference",
  {
    ...commonOptions,
    format: Options.choice("format", ["md", "json-schema"]).pipe(
      Options.withDefault("md" as const),
      Options.withDescription("md (default): the Markdown in docs/reference/; json-schema: the JSON Schemas it is generated from")
    ),
    document: Options.choice("document", REFERENCE_NAMES).pipe(
      Options.optional,
      Options.withDescription(`Print one document: ${REFERENCE_NAMES.join(", ")} (default: all)`)
    )
  },
  (opts) => Effect.flatMap(impl, (m) => m.runReference(opts))
).pipe(
  Command.withDescription(
    described(
      "Print the reference for pcli.toml, model sidecars, contracts, product specs and policy, generated from pcli's Schemas",
      "pcli docs reference --document model",
      "docs/reference/<document>.md in the repository is this command's output."
    )
  )
)

export const docsCommand = Command.make("docs").pipe(
  Command.withDescription(described("pcli's own documentation", "pcli docs reference")),
  Command.withSubcommands([referenceCommand])
)
