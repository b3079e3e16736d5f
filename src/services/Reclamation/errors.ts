import { Data } from "effect"

/** `[gc] physical_delete = true`: gc never deletes bytes, so the setting is refused, never ignored. */
export class PhysicalDeleteUnsupported extends Data.TaggedError("PhysicalDeleteUnsupported")<{ readonly configPath: string }> {
  readonly code = "gc-physical-delete-unsupported"
  override get message() {
    return `${this.configPath}: [gc] physical_delete = true is not supported — gc only evicts ledger rows (restorable) and never deletes bytes; remove the setting`
  }
}

const describe = (c: { readonly model_name: string; readonly blake3_hash: string; readonly evicted_at: string; readonly run_id: string; readonly size_bytes: number }) =>
  `${c.model_name} ${c.blake3_hash.slice(0, 12)} (evicted ${c.evicted_at}, run ${c.run_id}, ${c.size_bytes} bytes)`

type Listed = ReadonlyArray<{ readonly model_name: string; readonly blake3_hash: string; readonly evicted_at: string; readonly run_id: string; readonly size_bytes: number }>

/** More than one evicted artifact matches: nothing is planned, the candidates are listed. */
export class RestoreTargetAmbiguous extends Data.TaggedError("RestoreTargetAmbiguous")<{ readonly target: string; readonly candidates: Listed }> {
  readonly code = "restore-target-ambiguous"
  override get message() {
    return `restore ${this.target}: ambiguous — ${this.candidates.length} evicted artifacts match: ${this.candidates.map(describe).join("; ")}`
  }
}

/** Only already-restored tombstones match. */
export class RestoreAlreadyRestored extends Data.TaggedError("RestoreAlreadyRestored")<{ readonly target: string; readonly candidates: Listed }> {
  readonly code = "restore-already-restored"
  override get message() {
    return `restore ${this.target}: ALREADY restored: ${this.candidates.map(describe).join("; ")}`
  }
}

/** The target names a live artifact that was never evicted. */
export class RestoreTargetLive extends Data.TaggedError("RestoreTargetLive")<{ readonly target: string; readonly model: string; readonly hash: string }> {
  readonly code = "restore-target-live"
  override get message() {
    return `restore ${this.target}: ${this.model} ${this.hash.slice(0, 12)} is a LIVE artifact, never evicted; nothing to restore`
  }
}

/** No tombstone or ledger artifact matches. */
export class RestoreTargetUnknown extends Data.TaggedError("RestoreTargetUnknown")<{ readonly target: string }> {
  readonly code = "restore-target-unknown"
  override get message() {
    // A short hex word reads as a hash prefix the user cut too short, not as a model name.
    if (/^[0-9a-fA-F]{1,7}$/.test(this.target)) {
      return `restore ${this.target}: a content-hash prefix needs at least 8 hex characters (got ${this.target.length}), and no model is named ${this.target}`
    }
    return `restore ${this.target}: no tombstone or ledger artifact matches (a model name, model@<recipe-prefix>, or >= 8 hex of the content hash)`
  }
}

/**
 * The target names a physical table gc dropped (issue 34 item 4): restore rebuilds artifacts, not
 * tables. A table is built again by any run of an environment whose code holds its fingerprint.
 */
export class RestoreTableDropped extends Data.TaggedError("RestoreTableDropped")<{ readonly target: string; readonly physical: string; readonly planId: string }> {
  readonly code = "restore-table-dropped"
  override get message() {
    return `restore ${this.target}: physical table ${this.physical} was dropped by gc plan ${this.planId.slice(0, 12)}; restore rebuilds artifacts, not tables — run an environment that holds the model's code (pcli run, or pcli run --branch <name>) and the table is built again under its fingerprint`
  }
}
