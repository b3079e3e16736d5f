import { Data } from "effect"

/** `[gc] physical_delete = true`: gc never deletes bytes, so the setting is refused, never ignored. */
export class PhysicalDeleteUnsupported extends Data.TaggedError("PhysicalDeleteUnsupported")<{ readonly configPath: string }> {
  readonly code = "gc-physical-delete-unsupported"
  override get message() {
    return `${this.configPath}: [gc] physical_delete = true is not supported — gc only evicts ledger rows (restorable) and never deletes bytes; remove the setting`
  }
}
