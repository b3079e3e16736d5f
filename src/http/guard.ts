import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { describeError } from "../render/errors"
import { ROUTES } from "./api"
import { MethodNotAllowed, RouteNotFound, ServeUnauthorized, UnknownQueryParameter } from "./errors"
import { errorResponse, failureResponse } from "./respond"
import { STATIC_PATHS } from "./static"

const OPEN_PATHS = new Set([...STATIC_PATHS, "/api/v1/health"])
const DOCUMENT_PATHS = new Set([...STATIC_PATHS, "/api/v1/openapi.json"])

/** The refusal a request gets before any route runs: a method other than GET on a known path, or a query parameter its route does not take. */
const refusalOf = (method: string, url: string, path: string) => {
  const route = ROUTES.find((r) => r.pattern.test(path))
  if (route === undefined && !DOCUMENT_PATHS.has(path)) return undefined
  if (method !== "GET" && method !== "HEAD") return new MethodNotAllowed({ method: printable(method).slice(0, 20), path: printable(path).slice(0, 200) })
  if (route === undefined) return undefined
  const q = url.indexOf("?")
  if (q === -1) return undefined
  for (const name of new URLSearchParams(url.slice(q + 1)).keys()) {
    if (!route.params.has(name)) return new UnknownQueryParameter({ name: printable(name).slice(0, 100), path, known: [...route.params] })
  }
  return undefined
}

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
      const refusal = refusalOf(request.method, request.url, path)
      const answered: HttpServerResponse.HttpServerResponse =
        refusal !== undefined
          ? yield* Effect.map(errorResponse(describeError(refusal)), (r) => (refusal._tag === "MethodNotAllowed" ? HttpServerResponse.setHeader(r, "allow", "GET, HEAD") : r))
          : Option.isSome(token) && !OPEN_PATHS.has(path) && !bearerMatches(request.headers["authorization"], token.value)
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
