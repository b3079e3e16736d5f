import { type HttpApp, HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { describeError } from "../render/errors"
import { RouteNotFound, ServeUnauthorized } from "./errors"
import { errorResponse, failureResponse } from "./respond"

const OPEN_PATHS = new Set(["/", "/dashboard.css", "/dashboard.js", "/api/v1/health"])

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Compared as fixed-length digests, so neither the length nor a prefix of the token leaks through timing. */
const bearerMatches = (header: string | undefined, token: Redacted.Redacted<string>) => {
  const given = header !== undefined && header.startsWith("Bearer ") ? header.slice("Bearer ".length) : ""
  return timingSafeEqual(digest(given), digest(Redacted.value(token))) && given !== ""
}

const pathOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

/** Strips control characters: a logged path is what the client sent. */
// eslint-disable-next-line no-control-regex
const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")

/**
 * Around every request: the bearer check (health and the static dashboard stay open), every failure
 * as `{code, message, remediation_hint}`, and one log line: method, path, status, milliseconds.
 */
export const guard =
  (token: Option.Option<Redacted.Redacted<string>>, log: (line: string) => void) =>
  <R>(app: HttpApp.Default<never, R>): HttpApp.Default<never, R> =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = performance.now()
      const path = pathOf(request.url)
      const notFound = () => errorResponse(describeError(new RouteNotFound({ method: request.method, path: printable(path).slice(0, 200) })))
      const answered: HttpServerResponse.HttpServerResponse =
        Option.isSome(token) && !OPEN_PATHS.has(path) && !bearerMatches(request.headers["authorization"], token.value)
          ? yield* errorResponse(describeError(new ServeUnauthorized({ reason: "this server needs Authorization: Bearer <token>" })))
          : yield* app.pipe(
              Effect.catchAllCause((cause) => {
                const failure = Cause.failureOption(cause)
                return Option.isSome(failure) && (failure.value as { _tag?: string })._tag === "RouteNotFound" ? notFound() : failureResponse(cause)
              })
            )
      // The router answers an unknown path with an empty 404: give it the same body as every other error.
      const response = answered.status === 404 && answered.body._tag === "Empty" ? yield* notFound() : answered
      log(`${request.method} ${printable(path).slice(0, 200)} ${response.status} ${(performance.now() - started).toFixed(1)}ms\n`)
      return response
    })
