import { HelpDoc, ValidationError } from "@effect/cli"
import { stripVTControlCharacters } from "node:util"
import type { DescribedError } from "../render/errors"
import { oneLine } from "../render/errors"

/** A bad command line as the user sees it: `usage`, exit 2, @effect/cli's first line of explanation. */
export const describeUsage = (e: ValidationError.ValidationError): DescribedError => {
  const text = stripVTControlCharacters(HelpDoc.toAnsiText(e.error))
  const first = text.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "invalid command line"
  return { code: "usage", message: oneLine(first), exit: 2, status: 400, outputPrinted: false, remediation_hint: "run the command with --help for its flags" }
}

export const isUsageFailure = (e: unknown): e is ValidationError.ValidationError => ValidationError.isValidationError(e)
