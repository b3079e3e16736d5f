// `pcli docs reference`: the file formats' reference, generated from their Schemas so it cannot drift.
// JSONSchema.make gives the structure as a file holds it (the encoded side); field annotations are read
// from the type side, where Effect keeps them for every field (the encoded side of a struct with
// defaults drops those of its plain fields).
import { JSONSchema, type Schema, SchemaAST as AST } from "effect"
import { REFERENCE_DOCUMENTS, type ReferenceDocument, type ReferenceSection } from "../schemas/reference"

export type JsonNode = { [key: string]: unknown }

export interface FieldNote {
  readonly description?: string
  readonly examples?: ReadonlyArray<unknown>
}

const variantOf = (members: ReadonlyArray<{ readonly type?: unknown }>) => (i: number) => {
  const tag = members[i]?.type
  return typeof tag === "string" ? `{type=${tag}}` : `{${i}}`
}

/** The literal `type` of a union member that is a table, as its variant name. */
const astTypeTag = (ast: AST.AST): string | undefined => {
  const literal = AST.isTransformation(ast) ? ast.to : ast
  if (!AST.isTypeLiteral(literal)) return undefined
  const type = literal.propertySignatures.find((ps) => ps.name === "type")?.type
  return type !== undefined && AST.isLiteral(type) && typeof type.literal === "string" ? type.literal : undefined
}

/** Every field's description and examples, by TOML path (`tests[]{type=unique}.column`). */
export const fieldNotes = (ast: AST.AST, path = "", notes = new Map<string, FieldNote>()): Map<string, FieldNote> => {
  switch (ast._tag) {
    case "Transformation":
      return fieldNotes(ast.to, path, notes)
    case "Refinement":
      return fieldNotes(ast.from, path, notes)
    case "Union": {
      const tagged = ast.types.filter((t) => astTypeTag(t) !== undefined).length > 1
      const tags = ast.types.map((t) => ({ type: astTypeTag(t) }))
      ast.types.forEach((t, i) => fieldNotes(t, tagged ? `${path}${variantOf(tags)(i)}` : path, notes))
      return notes
    }
    case "TupleType":
      for (const rest of ast.rest) fieldNotes(rest.type, `${path}[]`, notes)
      return notes
    case "TypeLiteral":
      for (const ps of ast.propertySignatures) {
        const key = path === "" ? String(ps.name) : `${path}.${String(ps.name)}`
        const description = ps.annotations[AST.DescriptionAnnotationId]
        const examples = ps.annotations[AST.ExamplesAnnotationId]
        if (!notes.has(key) && (description !== undefined || examples !== undefined)) {
          notes.set(key, {
            ...(typeof description === "string" ? { description } : {}),
            ...(Array.isArray(examples) ? { examples } : {})
          })
        }
        fieldNotes(ps.type, key, notes)
      }
      return notes
    default:
      return notes
  }
}

const isNode = (v: unknown): v is JsonNode => typeof v === "object" && v !== null && !Array.isArray(v)

/** `{allOf:[{$ref}]}` and `{$ref}` resolved against the root's `$defs`, the outer annotations kept. */
export const resolveRef = (node: JsonNode, defs: JsonNode): JsonNode => {
  const ref = typeof node["$ref"] === "string" ? node["$ref"] : undefined
  const allOf = Array.isArray(node["allOf"]) && node["allOf"].length === 1 && isNode(node["allOf"][0]) ? node["allOf"][0] : undefined
  if (ref !== undefined) {
    const { $ref: _, ...rest } = node
    return { ...resolveRef(defs[ref.replace("#/$defs/", "")] as JsonNode, defs), ...rest }
  }
  if (allOf !== undefined) {
    const { allOf: _, ...rest } = node
    return { ...resolveRef(allOf, defs), ...rest }
  }
  return node
}

/** A copy of `node` (refs resolved) with each property's description and examples from `notes`. */
const annotate = (node: JsonNode, defs: JsonNode, notes: Map<string, FieldNote>, path: string): JsonNode => {
  const n = resolveRef(node, defs)
  const out: JsonNode = { ...n }
  if (isNode(n["properties"])) {
    const props: JsonNode = {}
    for (const [key, child] of Object.entries(n["properties"])) {
      const childPath = path === "" ? key : `${path}.${key}`
      const note = notes.get(childPath)
      const { title: _, ...annotated } = annotate(child as JsonNode, defs, notes, childPath)
      props[key] = { ...annotated, ...(note?.description === undefined ? {} : { description: note.description }), ...(note?.examples === undefined ? {} : { examples: note.examples }) }
    }
    out["properties"] = props
  }
  if (isNode(n["items"])) out["items"] = annotate(n["items"], defs, notes, `${path}[]`)
  if (Array.isArray(n["anyOf"])) {
    const members = n["anyOf"] as ReadonlyArray<JsonNode>
    const tags = members.map((m) => {
      const r = resolveRef(m, defs)
      const type = isNode(r["properties"]) && isNode(r["properties"]["type"]) ? r["properties"]["type"] : undefined
      const literal = type !== undefined && Array.isArray(type["enum"]) && type["enum"].length === 1 ? type["enum"][0] : undefined
      return { type: literal }
    })
    const tagged = tags.filter((t) => typeof t.type === "string").length > 1
    out["anyOf"] = members.map((m, i) => annotate(m, defs, notes, tagged ? `${path}${variantOf(tags)(i)}` : path))
  }
  delete out["$defs"]
  return out
}

export interface ReferenceSectionSchema {
  readonly heading: string
  readonly prefix: string
  readonly summarized: ReadonlyArray<string>
  readonly jsonSchema: JsonNode
}

export interface ReferenceDocumentSchemas {
  readonly document: ReferenceDocument
  readonly sections: ReadonlyArray<ReferenceSectionSchema>
}

const sectionSchema = (section: ReferenceSection): ReferenceSectionSchema => {
  const root = JSONSchema.make(section.schema as Schema.Schema<unknown, unknown, never>) as unknown as JsonNode
  const defs = isNode(root["$defs"]) ? root["$defs"] : {}
  const notes = fieldNotes(section.schema.ast)
  return { heading: section.heading, prefix: section.prefix, summarized: section.summarized ?? [], jsonSchema: { $schema: root["$schema"], ...annotate(root, defs, notes, "") } }
}

/** Every document, or the one named; `undefined` when no document has that name. */
export const referenceDocuments = (name?: string): ReadonlyArray<ReferenceDocumentSchemas> | undefined => {
  const chosen = name === undefined ? REFERENCE_DOCUMENTS : REFERENCE_DOCUMENTS.filter((d) => d.name === name)
  if (chosen.length === 0) return undefined
  return chosen.map((document) => ({ document, sections: document.sections.map(sectionSchema) }))
}
