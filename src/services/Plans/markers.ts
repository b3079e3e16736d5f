import { Either, ParseResult, Schema } from "effect"
import { parseBoundedJson } from "../../platform/jsonBounds"
import { lazy } from "../../platform/lazy"
import { ReviewMarker } from "../../schemas/plans"
import { type InvalidMarker, MarkerNotAFile, MarkerPlanMismatch, MarkerUnparseable, MarkerUnreadable } from "./errors"
import type { RegularFileRead } from "./fsio"

/** The one marker oracle apply, the queue and `review --status` share. */
export type MarkerState =
  | { readonly _tag: "Absent"; readonly path: string }
  | { readonly _tag: "Approved"; readonly path: string; readonly marker: ReviewMarker }
  | { readonly _tag: "Invalid"; readonly path: string; readonly error: InvalidMarker }

// Built on first use: most reads find no marker.
const decodeMarker = lazy(() => Schema.decodeUnknownEither(ReviewMarker, { onExcessProperty: "error" }))

/** Largest marker read back: a real one is a few hundred bytes. */
export const MAX_MARKER_CHARS = 64 * 1024

/** Classifies what was read at `<id>.reviewed.json`; only a well-formed marker naming `planId` approves. */
export const markerState = (
  planId: string,
  path: string,
  read: Either.Either<RegularFileRead, { readonly detail: string }>
): MarkerState => {
  if (Either.isLeft(read)) return { _tag: "Invalid", path, error: new MarkerUnreadable({ planId, path, detail: read.left.detail }) }
  const file = read.right
  if (file._tag === "Missing") return { _tag: "Absent", path }
  if (file._tag === "NotAFile") return { _tag: "Invalid", path, error: new MarkerNotAFile({ planId, path, found: file.found }) }
  // Size and nesting are refused before the decoder, which recurses, sees the value.
  const raw = parseBoundedJson(file.text, MAX_MARKER_CHARS)
  if (Either.isLeft(raw)) return { _tag: "Invalid", path, error: new MarkerUnparseable({ planId, path, detail: raw.left }) }
  const decoded = decodeMarker()(raw.right)
  if (Either.isLeft(decoded)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
    const detail = issue === undefined ? "invalid" : issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`
    return { _tag: "Invalid", path, error: new MarkerUnparseable({ planId, path, detail }) }
  }
  const marker = decoded.right
  if (marker.plan_id !== planId) {
    return { _tag: "Invalid", path, error: new MarkerPlanMismatch({ planId, path, otherPlanId: marker.plan_id }) }
  }
  return { _tag: "Approved", path, marker }
}

/** The marker body as written: pretty JSON, trailing newline. */
export const encodeMarker = (marker: ReviewMarker): string => `${JSON.stringify(marker, null, 2)}\n`
