import { HttpServerResponse } from "@effect/platform"
import { type Cause, Effect, type Schema } from "effect"
import { keptOnServedContext, keptWhileFilesUnchanged, onServedContext, type Served } from "../commands/serve"
import { UsageError } from "../commands/errors"
import { NotImplemented } from "./errors"
import { type DescribedError, describeCause, describeError } from "../render/errors"
import { encodeJson } from "../render/json"
import { HttpErrorBody } from "../schemas/serve"

/**
 * A JSON body exactly as render/json.ts wrote it: the same bytes `--output json` prints. Handed to
 * Node as the string (it writes UTF-8 natively), not copied through a TextEncoder first.
 */
export const jsonBytes = (body: string, status = 200) =>
  HttpServerResponse.raw(body, { status, contentType: "application/json", contentLength: Buffer.byteLength(body) })

/** As `jsonBytes`, with the UTF-8 encoded once: for a body that is answered again and again (a kept one). */
export const jsonBuffer = (body: string, status = 200) => HttpServerResponse.uint8Array(Buffer.from(body, "utf8"), { status, contentType: "application/json" })

/** An error as the error table says: its status, and `{code, message, remediation_hint}`. */
export const errorResponse = (d: Pick<DescribedError, "code" | "message" | "status" | "remediation_hint">) =>
  Effect.map(encodeJson(HttpErrorBody, { code: d.code, message: d.message, remediation_hint: d.remediation_hint ?? null }), (body) => jsonBytes(body, d.status))

export const failureResponse = (cause: Cause.Cause<unknown>) => errorResponse(describeCause(cause))

const respond = <E, R>(body: Effect.Effect<string, E, R>) =>
  Effect.matchCauseEffect(body, { onFailure: failureResponse, onSuccess: (text) => Effect.succeed(jsonBytes(text)) })

/** Runs a read on the server's read context and answers with the JSON text it made (render/json.ts's). */
export const answerJson = <E>(body: Effect.Effect<string, E, Served>) => respond(onServedContext(body))

/** Runs a command on the server's read context and answers with its output encoded as the CLI encodes it. */
export const answer = <A, I, E>(schema: Schema.Schema<A, I, never>, command: Effect.Effect<A, E, Served>) =>
  answerJson(Effect.flatMap(command, (value) => encodeJson(schema, value)))

/**
 * As `answer`, for a command whose output depends on pcli.toml and the store alone: its response,
 * bytes encoded once, is kept and answered again until either changes (services/Serve/ServeReads.ts says when).
 */
export const answerKept = <A, I, E>(route: string, schema: Schema.Schema<A, I, never>, command: Effect.Effect<A, E, Served>) =>
  Effect.catchAllCause(
    keptOnServedContext(route, Effect.map(Effect.flatMap(command, (value) => encodeJson(schema, value)), (text) => jsonBuffer(text))),
    failureResponse
  )

/** As `answer`, its bytes kept while no watched file changed (commands/serve.ts `keptWhileFilesUnchanged`). */
export const answerWatched = <A, I, E>(route: string, schema: Schema.Schema<A, I, never>, command: Effect.Effect<A, E, Served>) =>
  Effect.catchAllCause(
    // The UTF-8 bytes are what is kept: a 1,000-model body is encoded once, not per request.
    Effect.map(keptWhileFilesUnchanged(route, Effect.flatMap(command, (value) => Effect.map(encodeJson(schema, value), (text) => Buffer.from(text, "utf8")))), (bytes) =>
      HttpServerResponse.uint8Array(bytes, { contentType: "application/json" })
    ),
    failureResponse
  )

/** Query parameters each given at most once; a repeated one is a 400 `usage` (which value would win is a guess). */
export const singleParams = <K extends string>(params: { readonly [P in K]?: string | ReadonlyArray<string> | undefined }) =>
  Effect.suspend(() => {
    for (const [name, value] of Object.entries<string | ReadonlyArray<string> | undefined>(params)) {
      if (typeof value !== "string" && value !== undefined) return Effect.fail(new UsageError({ detail: `query parameter ${name} is given ${value.length} times; give it once` }))
    }
    return Effect.succeed(params as { readonly [P in K]?: string | undefined })
  })

/** A route whose command is not built yet: 501 `not_implemented`, never made-up data (decisions.md 28). */
export const notBuilt = (feature: string) => errorResponse(describeError(new NotImplemented({ feature })))
