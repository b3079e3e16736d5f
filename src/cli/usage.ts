import { HelpDoc, ValidationError } from "@effect/cli"
import type { DescribedError } from "../render/errors"
import { oneLine } from "../render/errors"
import { echo } from "./argv"

const HINT = "run the command with --help for its flags"

/** @effect/cli's wording for what argv.ts leaves to it, reworded to pcli's style; the echoed token cleaned and capped. */
const rewrites: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => string]> = [
  [/^Received unknown argument: '([\s\S]*)'$/, (m) => `unexpected argument '${echo(m[1]!)}'`],
  [/^Expected to find option: '([\s\S]*)'$/, (m) => `missing ${echo(m[1]!)}`],
  [/^Missing argument ([\s\S]*)$/, (m) => `missing argument ${echo(m[1]!)}`],
  // @effect/cli writes "a" before every type name ("is not a integer").
  [/^'([\s\S]*)' is not a ([a-z][a-z ]*)$/, (m) => `'${echo(m[1]!)}' is not ${/^[aeiou]/.test(m[2]!) ? "an" : "a"} ${m[2]}`]
]

const reword = (paragraph: string) => {
  for (const [pattern, to] of rewrites) {
    const m = pattern.exec(paragraph)
    if (m !== null) return to(m)
  }
  return echo(paragraph)
}

/** The plain paragraphs of a HelpDoc: @effect/cli explains one problem per paragraph. */
const paragraphs = (doc: HelpDoc.HelpDoc): ReadonlyArray<string> => {
  switch (doc._tag) {
    case "Paragraph":
      return [HelpDoc.toAnsiText(doc)]
    case "Sequence":
      return [...paragraphs(doc.left), ...paragraphs(doc.right)]
    case "Enumeration":
      return doc.elements.flatMap(paragraphs)
    default:
      return []
  }
}

/** A message as one `error[usage]:` line: every problem @effect/cli found, joined with "; ". */
export const usageMessage = (doc: HelpDoc.HelpDoc) => {
  const parts = paragraphs(doc).map((p) => reword(p.trim())).filter((p) => p !== "")
  return oneLine(parts.length === 0 ? "invalid command line" : [...new Set(parts)].join("; "))
}

/** A bad command line as the user sees it: `usage`, exit 2, one line. */
export const describeUsage = (e: ValidationError.ValidationError): DescribedError => usageFromMessage(usageMessage(e.error))

export const usageFromMessage = (message: string): DescribedError => ({
  code: "usage",
  message: oneLine(message),
  exit: 2,
  status: 400,
  outputPrinted: false,
  remediation_hint: HINT
})

export const isUsageFailure = (e: unknown): e is ValidationError.ValidationError => ValidationError.isValidationError(e)

/** A malformed flag value caught while reading argv: exit 1 with the flag's own code (`invalid-last`). */
export const invalidFlagValue = (code: string, message: string): DescribedError => ({
  code,
  message: oneLine(message),
  exit: 1,
  status: 400,
  outputPrinted: false,
  remediation_hint: HINT
})
