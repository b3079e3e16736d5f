import { Data } from "effect"

/** Every code the strict spec parser (and the verbs' file checks) can reject with. */
export const REJECT_CODES = [
  "not-utf8",
  "not-toml",
  "unknown-key",
  "missing-key",
  "invalid-value",
  "spec-version-unsupported",
  "product-name-invalid",
  "intent-empty",
  "output-model-invalid",
  "column-name-invalid",
  "type-not-rocky",
  "column-name-duplicate",
  "grain-column-unknown",
  "classification-column-unknown",
  "freshness-missing-time-column",
  "max-lag-unparseable",
  "source-not-exact-triple",
  "trust-not-propose-only"
] as const
export type RejectCode = (typeof REJECT_CODES)[number]

/** One parser rejection; rendered `[code] detail`. */
export interface Rejection {
  readonly code: RejectCode
  readonly detail: string
}

/** A spec the strict parser refused. The `code` is the reject code itself. */
export class SpecRejected extends Data.TaggedError("SpecRejected")<{
  readonly file: string
  readonly code: RejectCode
  readonly detail: string
}> {
  override get message() {
    return `${this.file}: ${this.detail}`
  }
}

export class SpecFileMissing extends Data.TaggedError("SpecFileMissing")<{ readonly file: string; readonly detail: string }> {
  readonly code = "spec-file-missing"
  override get message() {
    return `cannot read ${this.file}: ${this.detail}`
  }
}

export class ProductNameMismatch extends Data.TaggedError("ProductNameMismatch")<{
  readonly file: string
  readonly name: string
  readonly stem: string
}> {
  readonly code = "product-name-mismatch"
  override get message() {
    return `${this.file}: product.name is '${this.name}' but the file is named '${this.stem}'`
  }
}

/** A product name argument that could never name a spec (it is not a bare identifier). */
export class InvalidProductName extends Data.TaggedError("InvalidProductName")<{ readonly value: string }> {
  readonly code = "product-name-invalid"
  override get message() {
    return `invalid product name ${JSON.stringify(this.value)}: expected a bare identifier [A-Za-z_][A-Za-z0-9_]*`
  }
}

export class ProductNotFound extends Data.TaggedError("ProductNotFound")<{ readonly product: string }> {
  readonly code = "product_not_found"
  override get message() {
    return `product '${this.product}' not found: no products/${this.product}.toml and no approval or fulfillment record (see pcli product list)`
  }
}

export class ManifestUnreadable extends Data.TaggedError("ManifestUnreadable")<{ readonly path: string; readonly detail: string }> {
  readonly code = "manifest-unreadable"
  override get message() {
    return `${this.path}: ${this.detail}`
  }
}

/** A commit marker (or another committed file) the commit protocol could not read, write or rename. */
export class CommitIo extends Data.TaggedError("CommitIo")<{
  readonly action: string
  readonly path: string
  readonly detail: string
}> {
  readonly code = "commit-io"
  override get message() {
    return `${this.action} ${this.path} failed: ${this.detail}`
  }
}

export class CommitSymlinkedTarget extends Data.TaggedError("CommitSymlinkedTarget")<{ readonly path: string; readonly detail: string }> {
  readonly code = "commit-symlinked-target"
  override get message() {
    return `${this.path}: ${this.detail}`
  }
}

export class CommitUnexpectedBackup extends Data.TaggedError("CommitUnexpectedBackup")<{ readonly backup: string; readonly final: string }> {
  readonly code = "commit-unexpected-backup"
  override get message() {
    return `${this.backup} exists but the staging journal records no backup of ${this.final}; inspect it, delete it and re-run pcli product compile`
  }
}

export type StagingJournalCode =
  | "staging-journal-corrupt"
  | "staging-journal-forbidden-entry"
  | "staging-journal-unsafe-path"
  | "staging-journal-foreign-entry"

/** A staging journal refused before recovery touched anything. */
export class StagingJournalRefused extends Data.TaggedError("StagingJournalRefused")<{
  readonly code: StagingJournalCode
  readonly journal: string
  readonly detail: string
}> {
  override get message() {
    return `${this.journal}: ${this.detail}; nothing was changed`
  }
}

/** `product compile` when verify does not pass; the paste block (if any) is printed by the caller. */
export class VerifyNotPassed extends Data.TaggedError("VerifyNotPassed")<{
  readonly product: string
  readonly status: "needs_input" | "fail"
  readonly reason: string
  readonly pasteBlock: string | undefined
}> {
  readonly code = "verify-not-passed"
  override get message() {
    return `product '${this.product}' does not verify (${this.status}): ${this.reason.split("\n")[0]}; run pcli product verify ${this.product}`
  }
}

export class ModelCollision extends Data.TaggedError("ModelCollision")<{ readonly model: string; readonly path: string }> {
  readonly code = "model-collision"
  override get message() {
    return `${this.path} exists and no committed lowering of this product claims model '${this.model}'; rename the model or the product's output.model`
  }
}

export class SidecarUnparseable extends Data.TaggedError("SidecarUnparseable")<{ readonly path: string; readonly detail: string }> {
  readonly code = "sidecar-unparseable"
  override get message() {
    return `${this.path}: ${this.detail} (the file was left alone)`
  }
}

export type PhaseBCode = "phase-a-missing" | "phase-a-tampered" | "sidecar-missing" | "phase-a-identity-mismatch" | "spec-superseded" | "phase-a-manifest-incomplete"

/** Phase B refused: the Phase A generation it would build on is not intact. */
export class PhaseBRefused extends Data.TaggedError("PhaseBRefused")<{ readonly code: PhaseBCode; readonly detail: string }> {
  override get message() {
    return this.detail
  }
}

export class MaxLagUnrepresentable extends Data.TaggedError("MaxLagUnrepresentable")<{ readonly maxLag: string }> {
  readonly code = "max-lag-unrepresentable"
  override get message() {
    return `product.output.freshness.max_lag '${this.maxLag}' is more seconds than a sidecar integer holds`
  }
}

export class ApprovalSnapshotMissing extends Data.TaggedError("ApprovalSnapshotMissing")<{ readonly path: string; readonly detail: string }> {
  readonly code = "approval-snapshot-missing"
  override get message() {
    return `${this.path}: ${this.detail}; nothing proceeds`
  }
}

/** The approval snapshot's bytes no longer hash to the approved digest (or its path is not ours). */
export class SnapshotTampered extends Data.TaggedError("SnapshotTampered")<{ readonly path: string; readonly detail: string }> {
  readonly code = "tamper"
  override get message() {
    return `approval snapshot ${this.path}: ${this.detail}; nothing proceeds`
  }
}

/** Only a human approves a product spec (decisions.md 34): an agent's approval is refused and recorded. */
export class ProductApprovalNeedsHuman extends Data.TaggedError("ProductApprovalNeedsHuman")<{ readonly product: string }> {
  readonly code = "approval-needs-human"
  override get message() {
    return `an agent cannot approve product '${this.product}': a spec approval is a human sign-off (run pcli product approve ${this.product} without PCLI_PRINCIPAL=agent)`
  }
}

export class ApprovalCasLost extends Data.TaggedError("ApprovalCasLost")<{ readonly product: string; readonly current: string | null }> {
  readonly code = "approval-cas-lost"
  override get message() {
    return `another approval of '${this.product}' committed first; the approved digest is now ${this.current ?? "<none>"}`
  }
}

/** The product tables of the state store failed (SQL error) or hold a record this pcli cannot read. */
export class ProductRecordsUnavailable extends Data.TaggedError("ProductRecordsUnavailable")<{ readonly detail: string }> {
  readonly code = "product-records-unavailable"
  override get message() {
    return `product records in the state store: ${this.detail}`
  }
}

export type CommitError = CommitIo | CommitSymlinkedTarget | CommitUnexpectedBackup | StagingJournalRefused

/** Product files are addressed relative to the project root, so the models directory must sit inside it. */
export class ModelsOutsideProject extends Data.TaggedError("ModelsOutsideProject")<{ readonly modelsDir: string; readonly root: string }> {
  readonly code = "models-outside-project"
  override get message() {
    return `models directory ${this.modelsDir} is not inside the project root ${this.root}; product lowering writes only inside the project`
  }
}

/** `[code] message`: how verify reasons and status fields quote an error. */
export const coded = (e: { readonly code: string; readonly message: string }) => `[${e.code}] ${e.message}`
