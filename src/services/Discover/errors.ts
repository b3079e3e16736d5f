import { Data } from "effect"

/** `--emit-elt-state-to` could not write its file. */
export class EmitStateFailed extends Data.TaggedError("EmitStateFailed")<{
  readonly path: string
  readonly detail: string
}> {
  readonly code = "discover-emit-failed"
  override get message() {
    return `cannot write the discover envelope to ${this.path}: ${(this.detail.split("\n")[0] ?? "").slice(0, 300)}`
  }
}
