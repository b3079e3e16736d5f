import { Chunk, Effect, Schema, Stream } from "effect"

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

/**
 * `encodeJson(schema, { ...head, [field]: items })`, byte for byte, as a stream of text chunks: the
 * array's items are encoded as they arrive, so a million-row list never sits in memory. `head`
 * holds the document with `field` empty.
 */
export const encodeJsonStreamingArray = <A, I, B, J, E, R>(
  schema: Schema.Schema<A, I, never>,
  head: A,
  field: string,
  itemSchema: Schema.Schema<B, J, never>,
  items: Stream.Stream<B, E, R>
): Stream.Stream<string, E, R> =>
  Stream.unwrap(
    Effect.map(encodeJson(schema, head), (text) => {
      const marker = `\n  ${JSON.stringify(field)}: []`
      const at = text.indexOf(marker)
      if (at < 0 || text.indexOf(marker, at + 1) >= 0) throw new Error(`encodeJsonStreamingArray: no single top-level ${field} array`)
      let emitted = false
      const encodeItem = Schema.encodeSync(itemSchema)
      const body = items.pipe(
        Stream.map((item) => {
          const first = !emitted
          emitted = true
          return `${first ? "\n" : ",\n"}    ${JSON.stringify(encodeItem(item), null, 2).replace(/\n/g, "\n    ")}`
        }),
        Stream.grouped(512),
        Stream.map((chunk) => Chunk.join(chunk, ""))
      )
      return Stream.concat(
        Stream.make(`${text.slice(0, at)}\n  ${JSON.stringify(field)}: [`),
        Stream.concat(body, Stream.suspend(() => Stream.make(`${emitted ? "\n  ]" : "]"}${text.slice(at + marker.length)}`)))
      )
    })
  )
