import { Duration, Effect, Schedule } from "effect"

export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly maxRetries: number
  readonly baseDelay: Duration.DurationInput
  /** Cap of the exponential backoff (before jitter). */
  readonly maxDelay: Duration.DurationInput
  /** A `Retry-After` longer than this is clamped (a hostile or buggy server cannot park us). */
  readonly maxRetryAfter: Duration.DurationInput
}

export const defaultRetryPolicy: RetryPolicy = {
  maxRetries: 6,
  baseDelay: "250 millis",
  maxDelay: "10 seconds",
  maxRetryAfter: "60 seconds"
}

/** What the schedule needs to know of a failure. */
export interface RetryableFailure {
  readonly transient: boolean
  readonly retryAfterMillis?: number
}

const retryAfterOf = (error: unknown): number | undefined =>
  typeof error === "object" && error !== null && "retryAfterMillis" in error && typeof error.retryAfterMillis === "number"
    ? error.retryAfterMillis
    : undefined

const isTransient = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "transient" in error && error.transient === true

/**
 * Capped, jittered exponential backoff for transient failures only; a `Retry-After` sets
 * the wait instead. Each retry is logged with its delay (never with request contents).
 */
export const transientRetry = <E>(policy: RetryPolicy, describe: (error: E) => Record<string, unknown>) => {
  const backoff = Schedule.exponential(policy.baseDelay, 2).pipe(
    Schedule.modifyDelay((_, delay) => Duration.min(delay, Duration.decode(policy.maxDelay))),
    Schedule.jittered
  )
  return Schedule.identity<E>().pipe(
    Schedule.intersect(backoff),
    Schedule.intersect(Schedule.recurs(policy.maxRetries)),
    Schedule.whileInput((error: E) => isTransient(error)),
    Schedule.modifyDelayEffect(([[error], attempt], delay) => {
      const retryAfter = retryAfterOf(error)
      const wait =
        retryAfter === undefined ? delay : Duration.min(Duration.millis(retryAfter), Duration.decode(policy.maxRetryAfter))
      return Effect.logDebug("warehouse call retried").pipe(
        Effect.annotateLogs({ ...describe(error), attempt: attempt + 1, delay_ms: Duration.toMillis(wait) }),
        Effect.as(wait)
      )
    })
  )
}
