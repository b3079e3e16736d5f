import { Schema } from "effect"

/** `GET /api/v1/health`: the server is up (always open, even under a token). */
export const HealthOutput = Schema.Struct({ status: Schema.Literal("ok") })
export type HealthOutput = typeof HealthOutput.Type

/** Every HTTP error body (decisions.md 22): all three keys, the hint null where the error table has none. */
export const HttpErrorBody = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  remediation_hint: Schema.NullOr(Schema.String)
})
export type HttpErrorBody = typeof HttpErrorBody.Type
