import { Schema } from "effect"
import { draftModel } from "../commands/draftModel"
import { propose } from "../commands/propose"
import { DraftModelOutput, ProposeOutput } from "../schemas/authoring"
import { GitRef, ModelName } from "./args"
import { defineTool } from "./tool"

/** The two write tools, gated by policy (decisions.md 32). Nothing here approves or applies. */
export const authoringTools = [
  defineTool({
    name: "draft_model",
    description:
      "Write models/<name>.sql (and its sidecar TOML) when policy allows capability propose on the model, then compile; a compile error puts the previous files back",
    readOnly: false,
    input: Schema.Struct({
      name: ModelName,
      sql: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1_000_000)),
      sidecar: Schema.optional(Schema.String.pipe(Schema.maxLength(1_000_000)))
    }),
    output: DraftModelOutput,
    run: (args) => draftModel(args)
  }),
  defineTool({
    name: "propose",
    description:
      "Record an ai_authored plan of the drafted change: capability propose is checked first for every changed model, then the plan is checked as pcli apply will check it. deny: no plan (policy_denied); require_review: the plan and the commands a human runs (policy_review_required)",
    readOnly: false,
    input: Schema.Struct({
      models: Schema.optionalWith(Schema.Array(ModelName).pipe(Schema.maxItems(1000)), { default: () => [] }),
      base: Schema.optional(GitRef)
    }),
    output: ProposeOutput,
    run: ({ models, base }) => propose({ models, base })
  })
] as const
