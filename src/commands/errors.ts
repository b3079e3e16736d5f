import { Data } from "effect"

/** Flag conflicts and missing partners: exit 2, the message names both flags. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly detail: string }> {
  readonly code = "usage"
  override get message() {
    return this.detail
  }
}
