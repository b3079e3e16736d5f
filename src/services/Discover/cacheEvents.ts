import { Effect } from "effect"
import type { CacheEvent } from "../../schemas/discover"
import { emitEvent } from "../EventBus/EventBus"

/** One cache decision → bus + span event (`pcli.<field>` attributes). */
export const emitCacheEvent = (event: CacheEvent) => {
  const { _tag, ...fields } = event
  return emitEvent(_tag, fields).pipe(Effect.annotateLogs({ event: _tag }))
}
