// Loaded only when `pcli brief` runs.
import { Effect } from "effect"
import { advanceBriefCursor, briefForDelivery } from "../commands/brief"
import * as commandLayer from "../layers/commandLayers"
import { briefMarkdown } from "../render/text/brief"
import { BriefOutput, type BriefSince } from "../schemas/brief"
import { type CommonOptions, globalOptions } from "./options"
import { emit } from "./output"

export interface BriefOptions extends CommonOptions {
  readonly since: BriefSince
}

export const runBrief = (opts: BriefOptions) =>
  Effect.gen(function* () {
    const { out, advanceCursor } = yield* Effect.tap(briefForDelivery({ since: opts.since }), ({ out }) => emit(opts.output, BriefOutput, out, briefMarkdown))
    // The cursor moves only after the digest was delivered, through a write handle on the store the read resolved (the project is resolved once).
    if (advanceCursor) yield* advanceBriefCursor(out.generated_at).pipe(Effect.provide(commandLayer.briefCursor))
  }).pipe(Effect.provide(commandLayer.brief(globalOptions(opts))))
