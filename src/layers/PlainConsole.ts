import { Console, Effect, Layer } from "effect"
import { Environment } from "../services/Environment/Environment"
import { stripVTControlCharacters } from "node:util"

const plain = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? stripVTControlCharacters(a) : a))

/** True when a stream should get no colour codes: not a terminal, or NO_COLOR set (no-color.org). */
const wantsPlainText = (stream: { readonly isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>) =>
  stream.isTTY !== true || (env["NO_COLOR"] ?? "") !== ""

/**
 * @effect/cli writes version and completions through `Console.log` with ANSI styling; a pipe, a
 * file or NO_COLOR gets the same text without escape codes. Its usage errors go through
 * `Console.error` as multi-line docs: those are silenced, and main.ts prints the one
 * `error[usage]:` line itself. Logs use `console.unsafe.error`, which stays as it is.
 */
export const layer: Layer.Layer<never, never, Environment> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const env = yield* Environment
    const console = yield* Effect.console
    const plainOut = wantsPlainText(process.stdout, env)
    return Console.setConsole({
      ...console,
      log: (...args) => console.log(...(plainOut ? plain(args) : args)),
      info: (...args) => console.info(...(plainOut ? plain(args) : args)),
      error: () => Effect.void
    })
  })
)
