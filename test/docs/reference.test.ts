import { Either, Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as Toml from "smol-toml"
import { describe, expect, it } from "vitest"
import { ModelContract, ModelSidecar } from "../../src/schemas/model"
import { ProjectConfigFile } from "../../src/schemas/config"
import { REFERENCE_DOCUMENTS } from "../../src/schemas/reference"
import { REFERENCE_NAMES } from "../../src/schemas/referenceNames"
import { parseSpec } from "../../src/services/Products/spec"
import { makeProject, runCli } from "../support/cli"

const committed = (name: string) => readFileSync(join(__dirname, "../../docs/reference", `${name}.md`), "utf8")
const regenerate = "regenerate with: for n in pcli-toml model contract product policy; do pcli docs reference --document $n > docs/reference/$n.md; done"

describe("pcli docs reference", () => {
  const cwd = makeProject()

  it.each(REFERENCE_NAMES)("prints docs/reference/%s.md exactly as committed", async (name) => {
    const out = await runCli(["docs", "reference", "--document", name], { cwd })
    expect(out.code).toBe(0)
    expect(out.stdout, regenerate).toBe(committed(name))
  })

  it("prints every document, in order, without --document", async () => {
    const out = await runCli(["docs", "reference"], { cwd })
    expect(out.code).toBe(0)
    expect(out.stdout).toBe(REFERENCE_NAMES.map(committed).join("\n"))
  })

  it("documents every key with a description: a field added without one fails here", async () => {
    const out = await runCli(["docs", "reference"], { cwd })
    const rows = out.stdout.split("\n").filter((l) => l.startsWith("| `"))
    expect(rows.length).toBeGreaterThan(100)
    const undocumented = rows.filter((row) => row.split(" | ")[3]?.trim() === "")
    expect(undocumented).toEqual([])
  })

  it("prints the JSON Schemas the Markdown is generated from, with the annotations", async () => {
    const out = await runCli(["docs", "reference", "--format", "json-schema", "--document", "model"], { cwd })
    expect(out.code).toBe(0)
    const model = JSON.parse(out.stdout).model["."]
    expect(model.required).toEqual(["name", "target"])
    expect(model.properties.target.properties.schema.description).toMatch(/schema\.table/)
    const incremental = model.properties.strategy.anyOf.find((m: { properties: { type: { enum: Array<string> } } }) => m.properties.type.enum[0] === "incremental")
    expect(incremental.required).toEqual(["type", "timestamp_column"])
  })

  it("an unknown document is refused with exit 1 or 2 and nothing on stdout", async () => {
    const out = await runCli(["docs", "reference", "--document", "nope"], { cwd })
    expect([1, 2]).toContain(out.code)
    expect(out.stdout).toBe("")
  })
})

describe("the reference's worked examples", () => {
  const example = (name: string) => REFERENCE_DOCUMENTS.find((d) => d.name === name)!.example
  const decodes = (schema: Schema.Schema.AnyNoContext, text: string) => Either.isRight(Schema.decodeUnknownEither(schema)(Toml.parse(text)))

  it("each decodes with the Schema (or parser) it documents", () => {
    expect(decodes(ProjectConfigFile, example("pcli-toml"))).toBe(true)
    expect(decodes(ProjectConfigFile, example("policy"))).toBe(true)
    expect(decodes(ModelSidecar, example("model"))).toBe(true)
    expect(decodes(ModelContract, example("contract"))).toBe(true)
    expect(Either.isRight(parseSpec(new TextEncoder().encode(example("product"))))).toBe(true)
  })
})
