import { Schema } from "effect"

export const Severity = Schema.Literal("ok", "warning", "error")

export const Finding = Schema.Struct({
  code: Schema.String,
  severity: Severity,
  subject: Schema.String,
  message: Schema.String
})
export type Finding = typeof Finding.Type

export const ValidateOutput = Schema.Struct({
  command: Schema.Literal("validate"),
  ok: Schema.Boolean,
  config_path: Schema.String,
  findings: Schema.Array(Finding),
  errors: Schema.Number,
  warnings: Schema.Number
})
export type ValidateOutput = typeof ValidateOutput.Type
