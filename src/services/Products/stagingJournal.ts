import { Either, ParseResult, Schema } from "effect"

/** One file of a generation being committed: its final path, the staged bytes' hash, whether a backup was taken. */
export const StagingEntry = Schema.Struct({
  final: Schema.String,
  staged_sha: Schema.String.pipe(Schema.pattern(/^sha256:[0-9a-f]{64}$/)),
  has_prev: Schema.Boolean
})
export type StagingEntry = typeof StagingEntry.Type

/** `phase-staging.json`: written before the first rename; from then on recovery is defined. */
export const StagingJournal = Schema.Struct({
  entries: Schema.Array(StagingEntry),
  manifest: Schema.String
})
export type StagingJournal = typeof StagingJournal.Type

export const encodeStagingJournal = (journal: StagingJournal): string =>
  `${JSON.stringify({ entries: journal.entries.map((e) => ({ final: e.final, staged_sha: e.staged_sha, has_prev: e.has_prev })), manifest: journal.manifest }, null, 2)}\n`

/** Strict: exact keys, no type coercion (`"has_prev": "yes"` fails). */
export const decodeStagingJournal = (bytes: Uint8Array): Either.Either<StagingJournal, string> =>
  Either.try({
    try: () => JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as unknown,
    catch: (e) => `not JSON: ${(e as Error).message}`
  }).pipe(
    Either.flatMap((data) =>
      Schema.decodeUnknownEither(StagingJournal, { onExcessProperty: "error" })(data).pipe(
        Either.mapLeft((e) => `malformed: ${ParseResult.TreeFormatter.formatErrorSync(e).replace(/\s+/g, " ").trim()}`)
      )
    )
  )

