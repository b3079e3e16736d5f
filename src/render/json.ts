import { Chunk, Effect, Schema, Stream } from "effect"
import type { LedgerRow } from "../schemas/ledger"
import { CompileOutput } from "../schemas/pipeline"

/**
 * The one JSON encoder: Schema-encoded (keys in field order), 2-space indent, trailing
 * newline. The CLI, the HTTP server and the MCP server all call it, so their bytes agree.
 */
export const encodeJson = <A, I>(schema: Schema.Schema<A, I, never>, value: A): Effect.Effect<string> =>
  Schema.encode(schema)(value).pipe(Effect.orDie, Effect.map(jsonText))

/** The text `encodeJson` writes for a value already Schema-encoded (a surface that also needs the encoded value). */
export const jsonText = (encoded: unknown): string => `${JSON.stringify(encoded, null, 2)}\n`

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

/** One array item's JSON text; `newline` carries the indentation of the line the item starts on. */
export type ItemJson<B> = (item: B, newline: string) => string

/** The item writer a schema defines: the reference every hand-written writer is tested against. */
export const schemaItemJson = <B, J>(itemSchema: Schema.Schema<B, J, never>): ItemJson<B> => {
  const encode = Schema.encodeSync(itemSchema)
  return (item, newline) => JSON.stringify(encode(item), null, 2).replace(/\n/g, newline)
}

const q = JSON.stringify

/** A LedgerRow as `schemaItemJson(LedgerRow)` writes it, built field by field (a row encodes to itself): 3x faster. */
export const ledgerRowJson: ItemJson<LedgerRow> = (row, newline) => {
  const at = `,${newline}  `
  return (
    `{${newline}  "decision_ref": ${q(row.decision_ref)}${at}"kind": ${q(row.kind)}${at}"timestamp": ${q(row.timestamp)}` +
    `${at}"principal": ${q(row.principal)}${at}"principal_id": ${q(row.principal_id)}${at}"principal_id_source": ${q(row.principal_id_source)}` +
    `${at}"principal_id_verified": ${q(row.principal_id_verified)}${at}"target_principal": ${q(row.target_principal)}${at}"capability": ${q(row.capability)}` +
    `${at}"model": ${q(row.model)}${at}"effect": ${q(row.effect)}${at}"rule_id": ${q(row.rule_id)}${at}"plan_id": ${q(row.plan_id)}` +
    `${at}"reason": ${q(row.reason)}${newline}}`
  )
}

/** A string array inside an item, as `JSON.stringify(…, null, 2)` writes it at the item's field depth. */
const stringList = (items: ReadonlyArray<string>, newline: string): string =>
  items.length === 0 ? "[]" : `[${newline}    ${items.map((s) => q(s)).join(`,${newline}    `)}${newline}  ]`

/** A compiled model as `schemaItemJson(CompiledModelOutput)` writes it, built field by field (`pcli compile`'s 10,000-model output). */
export const compiledModelJson: ItemJson<CompileOutput["models"][number]> = (m, newline) => {
  const at = `,${newline}  `
  return (
    `{${newline}  "name": ${q(m.name)}${at}"target": ${q(m.target)}${at}"strategy": ${q(m.strategy)}${at}"depth": ${q(m.depth)}` +
    `${m.layer === undefined ? "" : `${at}"layer": ${q(m.layer)}`}${at}"contracted": ${q(m.contracted)}` +
    `${at}"depends_on": ${stringList(m.depends_on, newline)}${at}"sources": ${stringList(m.sources, newline)}` +
    `${at}"downstreams": ${q(m.downstreams)}${at}"reachable_downstreams": ${q(m.reachable_downstreams)}${newline}}`
  )
}

/** Items of a top-level array sit at depth 2. */
const ITEM_NEWLINE = "\n    "

/**
 * Top-level arrays of strings (or of string arrays) to write as `JSON.stringify` writes them: a
 * Schema of such arrays encodes them to themselves, but item by item (20,000 names in `pcli compile`'s head).
 */
export type PlainArrays = Readonly<Record<string, ReadonlyArray<string> | ReadonlyArray<ReadonlyArray<string>>>>

/** Where `text` (an `encodeJson` document) has its single top-level `field: []`. */
const emptyFieldAt = (text: string, field: string): { readonly at: number; readonly end: number } => {
  const marker = `\n  ${JSON.stringify(field)}: []`
  const at = text.indexOf(marker)
  if (at < 0 || text.indexOf(marker, at + 1) >= 0) throw new Error(`encodeJson: no single top-level ${field} array`)
  return { at, end: at + marker.length }
}

/** `encodeJson(schema, head)` split around its single top-level `field: []`, to splice the items in; `plain` arrays (empty in `head`) written in. */
const aroundArray = <A, I>(schema: Schema.Schema<A, I, never>, head: A, field: string, plain: PlainArrays = {}) =>
  Effect.map(encodeJson(schema, head), (encoded) => {
    let text = encoded
    for (const [name, value] of Object.entries(plain)) {
      const { at, end } = emptyFieldAt(text, name)
      text = `${text.slice(0, at)}\n  ${JSON.stringify(name)}: ${JSON.stringify(value, null, 2).replace(/\n/g, "\n  ")}${text.slice(end)}`
    }
    const { at, end } = emptyFieldAt(text, field)
    return { before: `${text.slice(0, at)}\n  ${JSON.stringify(field)}: [`, after: text.slice(end) }
  })

/** An item's text with what separates it from the one before, at the top-level array's depth. */
const itemPiece = <B>(itemJson: ItemJson<B>, item: B, first: boolean): string => `${first ? ITEM_NEWLINE : `,${ITEM_NEWLINE}`}${itemJson(item, ITEM_NEWLINE)}`

/** The document around its array, piece by piece: `before` and the items, then the array's close and `after`. */
const arrayPieces = <B>(around: { readonly before: string; readonly after: string }, itemJson: ItemJson<B>, items: ReadonlyArray<B>, emit: (piece: string) => void) => {
  if (items.length === 0) return emit(`${around.before}]${around.after}`)
  emit(around.before)
  for (let i = 0; i < items.length; i++) emit(itemPiece(itemJson, items[i]!, i === 0))
  emit(`\n  ]${around.after}`)
}

/**
 * `encodeJson(schema, { ...head, [field]: items })`, byte for byte, with each item written by
 * `itemJson` (a fast writer where the schema's own is the cost). `head` holds `field` empty.
 */
export const encodeJsonWithArray = <A, I, B>(
  schema: Schema.Schema<A, I, never>,
  head: A,
  field: string,
  itemJson: ItemJson<B>,
  items: ReadonlyArray<B>
): Effect.Effect<string> =>
  Effect.map(aroundArray(schema, head, field), (around) => {
    let text = ""
    arrayPieces(around, itemJson, items, (piece) => {
      text += piece
    })
    return text
  })

/** Characters of item text gathered before they are encoded to bytes (`encodeJsonWithArrayBytes`). */
const CHUNK_CHARS = 1 << 16

/**
 * `encodeJsonWithArray`'s text as UTF-8 bytes, encoded chunk by chunk as the items are written:
 * no rope of 10,000 item strings is kept and flattened at the end (`pcli compile`'s output, about
 * 3x faster). Chunks end between pieces, so no character is split.
 */
export const encodeJsonWithArrayBytes = <A, I, B>(
  schema: Schema.Schema<A, I, never>,
  head: A,
  field: string,
  itemJson: ItemJson<B>,
  items: ReadonlyArray<B>,
  plain?: PlainArrays
): Effect.Effect<Uint8Array> =>
  Effect.map(aroundArray(schema, head, field, plain), (around) => {
    const parts: Array<Buffer> = []
    let chunk = ""
    arrayPieces(around, itemJson, items, (piece) => {
      chunk += piece
      if (chunk.length >= CHUNK_CHARS) {
        parts.push(Buffer.from(chunk, "utf8"))
        chunk = ""
      }
    })
    parts.push(Buffer.from(chunk, "utf8"))
    return Buffer.concat(parts)
  })

/**
 * `encodeJson(schema, { ...head, [field]: items })`, byte for byte, as a stream of text chunks: the
 * array's items are encoded as they arrive, so a million-row list never sits in memory. `head`
 * holds the document with `field` empty.
 */
export const encodeJsonStreamingArray = <A, I, B, E, R>(
  schema: Schema.Schema<A, I, never>,
  head: A,
  field: string,
  itemJson: ItemJson<B>,
  items: Stream.Stream<B, E, R>
): Stream.Stream<string, E, R> =>
  Stream.unwrap(
    Effect.map(aroundArray(schema, head, field), ({ after, before }) => {
      let emitted = false
      const body = items.pipe(
        Stream.map((item) => {
          const first = !emitted
          emitted = true
          return itemPiece(itemJson, item, first)
        }),
        Stream.grouped(512),
        Stream.map((chunk) => Chunk.join(chunk, ""))
      )
      return Stream.concat(Stream.make(before), Stream.concat(body, Stream.suspend(() => Stream.make(`${emitted ? "\n  ]" : "]"}${after}`))))
    })
  )

/** `encodeJson(CompileOutput, out)`'s UTF-8 bytes: the models written by the field-by-field writer, the name lists as JSON.stringify writes them. */
export const compileOutputJson = (out: CompileOutput): Effect.Effect<Uint8Array> =>
  encodeJsonWithArrayBytes(
    CompileOutput,
    { ...out, execution_order: [], execution_layers: [], models: [] },
    "models",
    compiledModelJson,
    out.models,
    { execution_order: out.execution_order, execution_layers: out.execution_layers }
  )
