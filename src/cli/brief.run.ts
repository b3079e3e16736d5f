// Loaded only when `pcli brief` runs.
import { Effect } from "effect"
import { advanceBriefCursor, brief } from "../commands/brief"
import { StateReadLayer, StateWriteLayer } from "../layers/ProjectLayer"
import { briefMarkdown } from "../render/text/brief"
import { BriefOutput, type BriefSince } from "../schemas/brief"
import { StateStore } from "../services/StateStore/StateStore"
import { type CommonOptions, globalOptions } from "./options"
import { emit } from "./output"

export interface BriefOptions extends CommonOptions {
  readonly since: BriefSince
}

export const runBrief = (opts: BriefOptions) =>
  Effect.gen(function* () {
    const { out, persisted } = yield* Effect.gen(function* () {
      const out = yield* brief({ since: opts.since })
      yield* emit(opts.output, BriefOutput, out, briefMarkdown)
      return { out, persisted: (yield* StateStore).persisted }
    }).pipe(Effect.provide(StateReadLayer(globalOptions(opts))))
    // The cursor moves only after the digest was delivered, only for `last`, and never creates a store.
    if (opts.since === "last" && persisted) {
      yield* advanceBriefCursor(out.generated_at).pipe(Effect.provide(StateWriteLayer(globalOptions(opts))))
    }
  })
