import { Command } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { Checkpoints } from "../../platform/Checkpoints"
import type { ProductApproveOutput } from "../../schemas/products"
import { Ledger } from "../Ledger/Ledger"
import type { ActingPrincipal } from "../Principal/Principal"
import { canonicalRoot, fsyncDir, lstatOption, parentRel, readNoFollow, renameRel, takeCustody, unlinkRel, writeExclusive } from "./custody"
import { ApprovalSnapshotMissing, SnapshotTampered } from "./errors"
import { loadSpec, type ProductProject, snapshotRel, stateDirRel } from "./files"
import { type ApprovalRecord, readApproval, readRecord, recordApproval } from "./journal"
import { sha256 } from "./manifest"
import { productId } from "./spec"

/** RFC 3339 UTC to the second. */
export const rfc3339Seconds = (millis: number) => `${new Date(millis).toISOString().slice(0, 19)}Z`

/** Trimmed `git config --get user.email`; any failure (no git, no value) is `unknown`. Attribution only. */
export const gitApprover = (cwd: string) =>
  Command.string(Command.make("git", "config", "--get", "user.email").pipe(Command.workingDirectory(cwd))).pipe(
    Effect.map((s) => s.trim()),
    Effect.map((s) => (s === "" ? "unknown" : s)),
    Effect.orElseSucceed(() => "unknown")
  )

/** Re-hashes an approval's snapshot: an unreadable one is `approval-snapshot-missing`, other bytes are `tamper`. */
export const verifySnapshot = (project: ProductProject, approval: ApprovalRecord) =>
  Effect.gen(function* () {
    const root = yield* canonicalRoot(project.root).pipe(Effect.mapError((e) => new ApprovalSnapshotMissing({ path: approval.snapshot_path, detail: e.detail })))
    const dir = parentRel(approval.snapshot_path)
    yield* takeCustody(root, [dir], false).pipe(Effect.mapError((e) => new SnapshotTampered({ path: approval.snapshot_path, detail: `${e.path}: ${e.detail}` })))
    const st = yield* lstatOption(root, approval.snapshot_path).pipe(Effect.orElseSucceed(() => Option.none()))
    if (Option.isSome(st) && st.value.isSymbolicLink()) return yield* new SnapshotTampered({ path: approval.snapshot_path, detail: "it is a symlink" })
    const file = yield* readNoFollow(root, approval.snapshot_path, "read approval snapshot").pipe(
      Effect.mapError((e) => new ApprovalSnapshotMissing({ path: approval.snapshot_path, detail: e.detail }))
    )
    const found = sha256(file.bytes)
    if (found !== approval.spec_digest) {
      return yield* new SnapshotTampered({ path: approval.snapshot_path, detail: `its bytes hash to ${found}, not the approved ${approval.spec_digest}` })
    }
  })

/** True when the snapshot is present and hashes to the approved digest (status never fails on it). */
export const snapshotIntact = (project: ProductProject, approval: ApprovalRecord) =>
  verifySnapshot(project, approval).pipe(
    Effect.as(true),
    Effect.catchAll(() => Effect.succeed(false))
  )

/** Snapshot first: digest-addressed, never overwritten, written O_EXCL then renamed into place. */
const writeSnapshot = (project: ProductProject, name: string, digest: string, bytes: Uint8Array) =>
  Effect.gen(function* () {
    const rel = snapshotRel(name, digest)
    const tampered = (detail: string) => new SnapshotTampered({ path: rel, detail })
    const root = yield* canonicalRoot(project.root).pipe(Effect.mapError((e) => tampered(e.detail)))
    yield* takeCustody(root, [stateDirRel(name)], true).pipe(Effect.mapError((e) => tampered(`${e.path}: ${e.detail}`)))
    const existing = yield* lstatOption(root, rel).pipe(Effect.mapError((e) => tampered(e.detail)))
    if (Option.isSome(existing)) {
      if (existing.value.isSymbolicLink()) return yield* tampered("it is a symlink")
      const file = yield* readNoFollow(root, rel, "read approval snapshot").pipe(Effect.mapError((e) => tampered(e.detail)))
      if (sha256(file.bytes) !== digest) return yield* tampered(`it exists and hashes to ${sha256(file.bytes)}, not ${digest}`)
      return rel
    }
    const tmp = `${rel}.tmp`
    const stale = yield* lstatOption(root, tmp).pipe(Effect.mapError((e) => tampered(e.detail)))
    if (Option.isSome(stale)) {
      if (!stale.value.isFile()) return yield* tampered(`${tmp} is not a regular file`)
      yield* unlinkRel(root, tmp)
    }
    yield* writeExclusive(root, tmp, bytes, 0o444)
    yield* renameRel(root, tmp, rel)
    yield* fsyncDir(root, parentRel(rel))
    return rel
  })

/**
 * `product approve`: the snapshot, then one compare-and-swap transaction (approval, state
 * `spec_approved`, journal row, ledger row). The same digest again is a no-op.
 */
export const approveProduct = (project: ProductProject, name: string, actor: ActingPrincipal) =>
  Effect.gen(function* () {
    const loaded = yield* loadSpec(project, name)
    const approval = yield* readApproval(name)
    const record = yield* readRecord(name)
    const base = { command: "product_approve" as const, product_id: productId(name), spec_digest: loaded.digest, output_model: loaded.spec.outputModel }
    if (Option.isSome(approval) && approval.value.spec_digest === loaded.digest) {
      yield* verifySnapshot(project, approval.value)
      const state = Option.match(record, { onNone: () => "spec_approved" as const, onSome: (r) => r.record.state })
      return {
        ...base,
        approver: approval.value.approver,
        ...(approval.value.approved_by === null ? {} : { approved_by: approval.value.approved_by }),
        approved_at: approval.value.approved_at,
        snapshot_path: approval.value.snapshot_path,
        ...(Option.isSome(record) ? { previous_state: record.value.record.state } : {}),
        state,
        already_approved: true
      } satisfies ProductApproveOutput
    }
    const snapshot = yield* writeSnapshot(project, name, loaded.digest, loaded.bytes)
    yield* Effect.flatMap(Checkpoints, (c) => c.pauseAt("approve-observed"))
    const now = rfc3339Seconds(yield* Clock.currentTimeMillis)
    const approver = yield* gitApprover(project.root)
    const approvedBy = `${actor.class}(${actor.id})`
    const next: ApprovalRecord = { product_id: productId(name), spec_digest: loaded.digest, approver, approved_at: now, snapshot_path: snapshot, approved_by: approvedBy }
    const ledger = yield* Ledger
    const result = yield* recordApproval(
      { product: name, approval: next, observed: { approval, record }, now, event: "spec approved" },
      ledger.append({
        kind: "approval",
        principal: actor.class,
        principal_id: actor.id,
        principal_id_source: actor.source,
        capability: null,
        model: loaded.spec.outputModel,
        effect: null,
        rule_id: null,
        plan_id: null,
        reason: `product ${name}: spec ${loaded.digest} approved by ${approvedBy} (git ${approver})`
      })
    )
    return {
      ...base,
      approver,
      approved_by: approvedBy,
      approved_at: now,
      snapshot_path: snapshot,
      ...Option.match(result.previousState, { onNone: () => ({}), onSome: (s) => ({ previous_state: s }) }),
      state: "spec_approved",
      already_approved: false
    } satisfies ProductApproveOutput
  })
