import { HelpDoc, ValidationError } from "@effect/cli"
import { Cause, Data, Option } from "effect"
import { stripVTControlCharacters } from "node:util"

/** Flag conflicts and missing partners: exit 2, the message names both flags. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly detail: string }> {
  readonly code = "usage"
  override get message() {
    return this.detail
  }
}

/** Exit codes beyond the 0/1/2 default, by error tag (decisions.md item 2). */
const exitByTag: Readonly<Record<string, number>> = {
  UsageError: 2
}

export interface UserFailure {
  readonly code: string
  readonly message: string
  readonly exitCode: number
  /** @effect/cli prints its own message for a bad command line. */
  readonly alreadyReported: boolean
}

const hasCode = (e: unknown): e is { readonly _tag: string; readonly code: string; readonly message: string } =>
  typeof e === "object" && e !== null && typeof (e as { code?: unknown }).code === "string" && "_tag" in e

/** @effect/cli's own message for a bad command line, as one plain line (for the JSON error). */
const validationMessage = (e: ValidationError.ValidationError): string => {
  const text = stripVTControlCharacters(HelpDoc.toAnsiText(e.error))
  return text.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "invalid command line"
}

/** Maps a failed run to what the user sees: a stable code, one line, an exit code. */
export const describeFailure = (cause: Cause.Cause<unknown>): UserFailure => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const e = failure.value
    if (ValidationError.isValidationError(e)) return { code: "usage", message: validationMessage(e), exitCode: 2, alreadyReported: true }
    if (hasCode(e)) return { code: e.code, message: e.message.split("\n")[0]!, exitCode: exitByTag[e._tag] ?? 1, alreadyReported: false }
    return { code: "internal", message: String(e), exitCode: 1, alreadyReported: false }
  }
  if (Cause.isInterruptedOnly(cause)) return { code: "interrupted", message: "interrupted", exitCode: 130, alreadyReported: false }
  const defect = Cause.squash(cause)
  return { code: "internal", message: `internal error: ${defect instanceof Error ? defect.message : String(defect)}`, exitCode: 1, alreadyReported: false }
}
