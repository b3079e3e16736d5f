import { HttpServerResponse } from "@effect/platform"
import { type Cause, Effect, type Schema } from "effect"
import { type Served, ServeReads } from "../layers/ServeLayer"
import { NotImplemented } from "./errors"
import { type DescribedError, describeCause, describeError } from "../render/errors"
import { encodeJson } from "../render/json"
import { HttpErrorBody } from "../schemas/serve"

/** A JSON body exactly as render/json.ts wrote it: the same bytes `--output json` prints. */
export const jsonBytes = (body: string, status = 200) => HttpServerResponse.text(body, { status, contentType: "application/json" })

/** An error as the error table says: its status, and `{code, message, remediation_hint}`. */
export const errorResponse = (d: Pick<DescribedError, "code" | "message" | "status" | "remediation_hint">) =>
  Effect.map(encodeJson(HttpErrorBody, { code: d.code, message: d.message, remediation_hint: d.remediation_hint ?? null }), (body) => jsonBytes(body, d.status))

export const failureResponse = (cause: Cause.Cause<unknown>) => errorResponse(describeCause(cause))

/** Runs a command on the server's read context and answers with its output encoded as the CLI encodes it. */
export const answer = <A, I, E>(schema: Schema.Schema<A, I, never>, command: Effect.Effect<A, E, Served>) =>
  Effect.flatMap(ServeReads, (reads) =>
    reads.run(Effect.flatMap(command, (value) => encodeJson(schema, value))).pipe(
      Effect.matchCauseEffect({ onFailure: failureResponse, onSuccess: (body) => Effect.succeed(jsonBytes(body)) })
    )
  )

/** A route whose command is not built yet: 501 `not_implemented`, never made-up data (decisions.md 28). */
export const notBuilt = (feature: string) => errorResponse(describeError(new NotImplemented({ feature })))
