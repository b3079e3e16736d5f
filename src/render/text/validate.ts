import type { ValidateOutput } from "../../schemas/validate"

/** `pcli validate` in text: one line per finding, then the totals. */
export const renderValidateText = (out: ValidateOutput) =>
  [
    ...out.findings.map((f) => `${f.severity.padEnd(7)} ${f.code}  ${f.subject}: ${f.message}`),
    `${out.errors} error(s), ${out.warnings} warning(s)`
  ].join("\n")
