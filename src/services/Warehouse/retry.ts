import { Duration, Effect, Schedule } from "effect"

/**
 * The one retry policy for warehouse work (decisions.md "One retry layer"): the runner retries a
 * model's build, the embedded warehouse retries opening a locked file; nothing below retries again.
 */
export interface RetryPolicy {
  /** Retries after the first attempt, for transient failures only. */
  readonly maxRetries: number
  /** First backoff; doubles each retry, jittered. */
  readonly baseDelayMillis: number
  /** Cap of the exponential backoff, before jitter (default 10 s). */
  readonly maxDelayMillis?: number
  /** A server's `Retry-After` longer than this is clamped (default 60 s). */
  readonly maxRetryAfterMillis?: number
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 3, baseDelayMillis: 200 }

const retryAfterOf = (error: unknown): number | undefined =>
  typeof error === "object" && error !== null && "retryAfterMillis" in error && typeof error.retryAfterMillis === "number"
    ? error.retryAfterMillis
    : undefined

const transientFlag = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "transient" in error && error.transient === true

/** Announced before each retry (logged at WARN; the CLI routes it to stderr). */
export interface RetryNotice {
  /** What is retried: `model orders`, `embedded warehouse <path>`. */
  readonly subject: string
  /** The attempt about to start (2 for the first retry). */
  readonly attempt: number
  /** Attempts in all (retries + 1). */
  readonly attempts: number
  readonly delayMillis: number
  /** First line of the failure that caused the retry. */
  readonly reason: string
}

/** `0.25s`, `1.5s`, `12s`: enough digits to tell short waits apart, no trailing zeros. */
const seconds = (millis: number) => {
  const s = millis / 1000
  return `${s >= 10 ? Math.round(s) : Number(s.toFixed(s < 1 ? 2 : 1))}s`
}

const firstLine = (text: string) => {
  const line = text.split("\n")[0] ?? ""
  return line.length > 200 ? `${line.slice(0, 199)}…` : line
}

/** `retrying (2/4) in 0.4s: model orders: <reason>` */
export const formatRetryNotice = (notice: RetryNotice): string =>
  `retrying (${notice.attempt}/${notice.attempts}) in ${seconds(notice.delayMillis)}: ${notice.subject}: ${notice.reason}`

export interface RetryOptions<E> {
  readonly policy: RetryPolicy
  /** What is retried, for the notice: `model orders`. */
  readonly subject: string
  /** Which failures a later attempt may get past (default: the failure's own `transient` flag). */
  readonly isTransient?: (error: E) => boolean
  /** The reason the notice gives (default: the failure message's first line). */
  readonly describe?: (error: E) => string
}

/**
 * Retries `effect` while it fails transiently, with capped, jittered exponential backoff (a
 * failure's `retryAfterMillis`, from a `Retry-After`, sets the wait instead), at most
 * `policy.maxRetries` times. Each retry is logged at WARN as `formatRetryNotice`, its fields as
 * annotations (`pcli.retry = true`): services never print, the CLI's logger writes it to stderr.
 */
export const retryTransient = <A, E extends { readonly message: string }, R>(
  effect: Effect.Effect<A, E, R>,
  options: RetryOptions<E>
): Effect.Effect<A, E, R> => {
  const { policy, subject } = options
  const isTransient = options.isTransient ?? transientFlag
  const maxDelay = Duration.millis(policy.maxDelayMillis ?? 10_000)
  const maxRetryAfter = policy.maxRetryAfterMillis ?? 60_000
  const backoff = Schedule.exponential(Duration.millis(policy.baseDelayMillis), 2).pipe(
    Schedule.modifyDelay((_, delay) => Duration.min(delay, maxDelay)),
    Schedule.jittered
  )
  const schedule = Schedule.identity<E>().pipe(
    Schedule.intersect(backoff),
    Schedule.intersect(Schedule.recurs(policy.maxRetries)),
    Schedule.whileInput(isTransient),
    Schedule.modifyDelayEffect(([[error], retried], delay) => {
      const retryAfter = retryAfterOf(error)
      const wait = Math.round(retryAfter === undefined ? Duration.toMillis(delay) : Math.min(retryAfter, maxRetryAfter))
      const notice: RetryNotice = {
        subject,
        attempt: retried + 2,
        attempts: policy.maxRetries + 1,
        delayMillis: wait,
        reason: firstLine(options.describe === undefined ? error.message : options.describe(error))
      }
      return Effect.logWarning(formatRetryNotice(notice)).pipe(
        Effect.annotateLogs({ "pcli.retry": true, subject, attempt: notice.attempt, attempts: notice.attempts, delay_ms: wait }),
        Effect.as(Duration.millis(wait))
      )
    })
  )
  return Effect.retry(effect, schedule)
}
