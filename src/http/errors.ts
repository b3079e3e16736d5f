import { Data } from "effect"

/** A request without the server's bearer token (every route but health, when PCLI_SERVE_TOKEN is set). */
export class ServeUnauthorized extends Data.TaggedError("ServeUnauthorized")<{ readonly reason: string }> {
  readonly code = "unauthorized"
  override get message() {
    return this.reason
  }
}

/** The port could not be bound (in use, not permitted, unknown host). */
export class ServeListenFailed extends Data.TaggedError("ServeListenFailed")<{ readonly address: string; readonly detail: string }> {
  readonly code = "serve-listen-failed"
  override get message() {
    return `cannot listen on ${this.address}: ${this.detail}`
  }
}

/** No route for the method and path. */
export class RouteNotFound extends Data.TaggedError("RouteNotFound")<{ readonly method: string; readonly path: string }> {
  readonly code = "route_not_found"
  override get message() {
    return `no route ${this.method} ${this.path}: see /api/v1/openapi.json`
  }
}

/** A documented route whose command this server does not serve yet: 501, never made-up data (decisions.md 28). */
export class NotImplemented extends Data.TaggedError("NotImplemented")<{ readonly feature: string }> {
  readonly code = "not_implemented"
  override get message() {
    return `${this.feature} is not implemented yet`
  }
}

/** A method other than GET (or HEAD) on a route: every route only reads. */
export class MethodNotAllowed extends Data.TaggedError("MethodNotAllowed")<{ readonly method: string; readonly path: string }> {
  readonly code = "method_not_allowed"
  override get message() {
    return `${this.method} ${this.path}: this server only reads; use GET`
  }
}

/** A query parameter the route does not take: a misspelt filter would otherwise widen the answer silently. */
export class UnknownQueryParameter extends Data.TaggedError("UnknownQueryParameter")<{ readonly name: string; readonly path: string; readonly known: ReadonlyArray<string> }> {
  readonly code = "usage"
  override get message() {
    return `${this.path} takes no query parameter ${JSON.stringify(this.name)}${this.known.length === 0 ? "" : ` (it takes ${this.known.join(", ")})`}`
  }
}
