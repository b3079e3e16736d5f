import { Effect, type Schema } from "effect"
import { sanitizeLines } from "../platform/echo"
import { encodeJson } from "../render/json"
import type { OutputFormat } from "./globalOptions"

export const writeStdout = (text: string | Uint8Array) => Effect.sync(() => void process.stdout.write(text))
export const writeStderr = (text: string) => Effect.sync(() => void process.stderr.write(text))

/** Prints a command's output value as JSON (the one encoder) or as its text rendering, made inert (user text may carry escape codes). */
export const emit = <A, I>(
  format: OutputFormat,
  schema: Schema.Schema<A, I, never>,
  value: A,
  text: (value: A) => string
): Effect.Effect<void> =>
  format === "json"
    ? Effect.flatMap(encodeJson(schema, value), writeStdout)
    : writeStdout(((t) => (t === "" || t.endsWith("\n") ? t : `${t}\n`))(sanitizeLines(text(value))))

/** A live progress line on a terminal in text mode; nothing otherwise. */
export const liveProgress = (format: OutputFormat) => format === "text" && process.stderr.isTTY === true
