import { Data } from "effect"

export class NoEltAdapter extends Data.TaggedError("NoEltAdapter")<{
  readonly wanted: string | undefined
  readonly known: ReadonlyArray<string>
}> {
  readonly code = "no-elt-adapter"
  override get message() {
    return this.wanted === undefined
      ? 'no connector-sync adapter: add an [adapter.<name>] block with type = "elt"'
      : `--adapter ${this.wanted} is not a type = "elt" adapter (known: ${this.known.length === 0 ? "none" : this.known.join(", ")})`
  }
}

export class AmbiguousAdapter extends Data.TaggedError("AmbiguousAdapter")<{ readonly adapters: ReadonlyArray<string> }> {
  readonly code = "ambiguous-adapter"
  override get message() {
    return `several connector-sync adapters (${this.adapters.join(", ")}): choose one with --adapter <name>`
  }
}
