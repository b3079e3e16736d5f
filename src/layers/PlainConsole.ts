import { Console, Effect, Layer } from "effect"
import { stripVTControlCharacters } from "node:util"

const plain = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? stripVTControlCharacters(a) : a))

/** True when a stream should get no colour codes: not a terminal, or NO_COLOR set (no-color.org). */
export const wantsPlainText = (stream: { readonly isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>) =>
  stream.isTTY !== true || (env["NO_COLOR"] ?? "") !== ""

/**
 * @effect/cli writes help, version and usage errors through `Console` with ANSI styling; a
 * pipe, a file or NO_COLOR gets the same text without escape codes.
 */
export const layer: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.consoleWith((console) => {
    const plainOut = wantsPlainText(process.stdout, process.env)
    const plainErr = wantsPlainText(process.stderr, process.env)
    if (!plainOut && !plainErr) return Effect.succeed(Layer.empty)
    return Effect.succeed(
      Console.setConsole({
        ...console,
        log: (...args) => console.log(...(plainOut ? plain(args) : args)),
        info: (...args) => console.info(...(plainOut ? plain(args) : args)),
        error: (...args) => console.error(...(plainErr ? plain(args) : args)),
        warn: (...args) => console.warn(...(plainErr ? plain(args) : args))
      })
    )
  })
)
