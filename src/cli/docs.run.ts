// Loaded only when `pcli docs reference` runs.
import { Effect, Option } from "effect"
import { referenceDocuments } from "../commands/docsReference"
import { renderReferenceMarkdown } from "../render/text/reference"
import type { CommonOptions } from "./options"
import { writeStdout } from "./output"

export interface ReferenceOptions extends CommonOptions {
  readonly format: "md" | "json-schema"
  readonly document: Option.Option<string>
}

export const runReference = (opts: ReferenceOptions) =>
  Effect.suspend(() => {
    const documents = referenceDocuments(Option.getOrUndefined(opts.document)) ?? []
    if (opts.format === "md" && opts.output === "json") {
      // JSON mode keeps stdout one JSON value: the Markdown of each document, by name.
      const markdown = documents.map((d) => ({ name: d.document.name, markdown: renderReferenceMarkdown(d) }))
      return writeStdout(`${JSON.stringify({ command: "docs reference", format: "md", documents: markdown }, null, 2)}\n`)
    }
    if (opts.format === "md") return writeStdout(documents.map(renderReferenceMarkdown).join("\n"))
    const schemas = Object.fromEntries(
      documents.map(({ document, sections }) => [document.name, Object.fromEntries(sections.map((s) => [s.prefix === "" ? "." : s.prefix, s.jsonSchema]))])
    )
    return writeStdout(`${JSON.stringify(schemas, null, 2)}\n`)
  })
