import { Effect, Schema } from "effect"
import type { OutputFormat } from "./options"

/**
 * The one JSON encoder: Schema-encoded (keys in field order), 2-space indent, trailing
 * newline. The HTTP server calls this too, so its bodies equal the CLI's bytes.
 */
export const encodeJson = <A, I>(schema: Schema.Schema<A, I, never>, value: A): Effect.Effect<string> =>
  Schema.encode(schema)(value).pipe(
    Effect.orDie,
    Effect.map((encoded) => `${JSON.stringify(encoded, null, 2)}\n`)
  )

export const writeStdout = (text: string) => Effect.sync(() => void process.stdout.write(text))
export const writeStderr = (text: string) => Effect.sync(() => void process.stderr.write(text))

/** Prints a command's output value as JSON or as its text rendering. */
export const emit = <A, I>(
  format: OutputFormat,
  schema: Schema.Schema<A, I, never>,
  value: A,
  text: (value: A) => string
): Effect.Effect<void> =>
  format === "json"
    ? Effect.flatMap(encodeJson(schema, value), writeStdout)
    : writeStdout(((t) => (t === "" || t.endsWith("\n") ? t : `${t}\n`))(text(value)))
