import { Effect, Schema } from "effect"

/**
 * The one JSON encoder: Schema-encoded (keys in field order), 2-space indent, trailing
 * newline. The CLI, the HTTP server and the MCP server all call it, so their bytes agree.
 */
export const encodeJson = <A, I>(schema: Schema.Schema<A, I, never>, value: A): Effect.Effect<string> =>
  Schema.encode(schema)(value).pipe(
    Effect.orDie,
    Effect.map((encoded) => `${JSON.stringify(encoded, null, 2)}\n`)
  )

/** What an error looks like to a machine: the HTTP body, and the CLI's `{"error": …}` document. */
export const ErrorBody = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  remediation_hint: Schema.optional(Schema.String)
})
export type ErrorBody = typeof ErrorBody.Type

/** The CLI's JSON error document (decisions.md item 2): `{"error":{"code","message"}}`. */
export const CliErrorDocument = Schema.Struct({ error: Schema.Struct({ code: Schema.String, message: Schema.String }) })

export const encodeCliError = (body: ErrorBody) => encodeJson(CliErrorDocument, { error: { code: body.code, message: body.message } })
