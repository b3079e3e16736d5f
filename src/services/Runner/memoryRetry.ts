import { Effect, Option } from "effect"
import { describeMemoryLimit, isOutOfMemoryMessage } from "../Warehouse/memoryCap"
import { Warehouse } from "../Warehouse/Warehouse"

/**
 * Runs a model's build; when it ran out of memory under the embedded warehouse's rising cap, raises
 * the cap and builds again, as long as the cap can rise. A build is one transaction that rolled
 * back, so running it again is safe. Each retry is logged at WARN like the runner's transient
 * retries (`retrying with memory_limit = 256MB: model m: <reason>`). A fixed cap, or a warehouse
 * without one, leaves the build as it is.
 */
export const withMemoryToGrow = <A, E extends { readonly _tag: string; readonly message: string }, R>(
  build: Effect.Effect<A, E, R>,
  subject: string
): Effect.Effect<A, E, R | Warehouse> =>
  Effect.flatMap(Warehouse, (wh) => {
    const cap = wh.memory
    if (cap === undefined) return build
    const attempt: Effect.Effect<A, E, R> = Effect.flatMap(cap.step, (step) =>
      Effect.catchIf(
        build,
        (e) => e._tag === "StatementFailed" && isOutOfMemoryMessage(e.message),
        (e) =>
          Effect.flatMap(cap.raiseFrom(step), (raised) =>
            Option.match(raised, {
              onNone: () => Effect.fail(e),
              onSome: (limit) =>
                Effect.logWarning(`retrying with memory_limit = ${describeMemoryLimit(limit)}: ${subject}: ${e.message.split("\n")[0]}`).pipe(
                  Effect.annotateLogs({ "pcli.retry": true, subject, memory_limit: describeMemoryLimit(limit) }),
                  Effect.zipRight(attempt)
                )
            })
          )
      )
    )
    return attempt
  })
