import { Data } from "effect"

/** Flag conflicts and missing partners: exit 2, the message names both flags. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly detail: string }> {
  readonly code = "usage"
  override get message() {
    return this.detail
  }
}

/** A flag given a value out of its range (`--last 0`): exit 1 with the flag's own code, `invalid-<flag>`. */
export class InvalidFlagValue extends Data.TaggedError("InvalidFlagValue")<{ readonly flag: string; readonly detail: string }> {
  get code() {
    return `invalid-${this.flag.replace(/^-+/, "")}`
  }
  override get message() {
    return this.detail
  }
}
