import { Effect, Option } from "effect"
import type { CheckpointsService } from "../../platform/Checkpoints"
import {
  canonicalRoot,
  type Custody,
  fsyncDir,
  lstatOption,
  parentRel,
  prevRel,
  readNoFollow,
  recheck,
  renameRel,
  stagedRel,
  takeCustody,
  unlinkRel,
  writeExclusive
} from "./custody"
import { CommitIo, CommitSymlinkedTarget } from "./errors"
import { isCanonicalRelative, sha256 } from "./manifest"
import { encodeStagingJournal, type StagingEntry } from "./stagingJournal"

export interface PlannedFile {
  readonly rel: string
  readonly bytes: Uint8Array
}

/** One generation: artifacts first, the manifest (the commit marker) last. */
export interface CommitPlan {
  readonly root: string
  readonly files: ReadonlyArray<PlannedFile>
  readonly journal: string
}

/** Every step a crash test can stop after, in order (`rename-<n>` once per file). */
export const commitSteps = (files: number): ReadonlyArray<string> => [
  "stage",
  "journal",
  ...Array.from({ length: files }, (_, i) => `rename-${i + 1}`),
  "backups-removed",
  "journal-removed"
]

const uniqueDirs = (rels: ReadonlyArray<string>) => [...new Set(rels.map(parentRel).filter((d) => d !== ""))]

/** Refuses a target whose leaf, staged or backup sibling is a symlink or a directory. */
const precheck = (root: string, rel: string) =>
  Effect.gen(function* () {
    if (!isCanonicalRelative(rel)) return yield* new CommitSymlinkedTarget({ path: rel, detail: "not a canonical project-relative path" })
    for (const target of [rel, stagedRel(rel), prevRel(rel)]) {
      const st = yield* lstatOption(root, target)
      if (Option.isNone(st)) continue
      if (st.value.isSymbolicLink()) return yield* new CommitSymlinkedTarget({ path: target, detail: "is a symlink; refusing to write through it" })
      if (st.value.isDirectory()) return yield* new CommitSymlinkedTarget({ path: target, detail: "is a directory" })
      if (!st.value.isFile()) return yield* new CommitIo({ action: "inspect", path: target, detail: "not a regular file" })
    }
  })

/** Writes a sibling exclusively; a stale regular one (left by a crash before the journal existed) is removed first. */
const writeSibling = (root: string, custody: Custody, rel: string, bytes: Uint8Array, mode: number) =>
  Effect.gen(function* () {
    yield* recheck(root, custody, rel)
    const st = yield* lstatOption(root, rel)
    if (Option.isSome(st)) {
      if (!st.value.isFile()) return yield* new CommitSymlinkedTarget({ path: rel, detail: "is not a regular file" })
      yield* unlinkRel(root, rel)
    }
    yield* writeExclusive(root, rel, bytes, mode)
  })

/**
 * Commits one generation with the `.ff-staged`/`.ff-prev` protocol: stage every file (backing up
 * existing finals), write the journal, rename artifacts then the manifest, clean up. A crash at any
 * point leaves either the previous or the new generation after recovery.
 */
export const commitGeneration = (plan: CommitPlan, checkpoints: CheckpointsService) =>
  Effect.gen(function* () {
    const root = yield* canonicalRoot(plan.root)
    const rels = [...plan.files.map((f) => f.rel), plan.journal]
    const dirs = uniqueDirs(rels)
    const custody = yield* takeCustody(root, dirs, true)
    for (const rel of rels) yield* precheck(root, rel)
    if (Option.isSome(yield* lstatOption(root, plan.journal))) {
      return yield* new CommitIo({ action: "stage", path: plan.journal, detail: "a staging journal is already present (recovery did not run)" })
    }

    const entries: Array<StagingEntry> = []
    for (const file of plan.files) {
      const existing = Option.isSome(yield* lstatOption(root, file.rel)) ? Option.some(yield* readNoFollow(root, file.rel, "back up")) : Option.none()
      const mode = Option.match(existing, { onNone: () => 0o644, onSome: (f) => f.mode })
      yield* writeSibling(root, custody, stagedRel(file.rel), file.bytes, mode)
      if (Option.isSome(existing)) yield* writeSibling(root, custody, prevRel(file.rel), existing.value.bytes, existing.value.mode)
      entries.push({ final: file.rel, staged_sha: sha256(file.bytes), has_prev: Option.isSome(existing) })
    }
    for (const dir of dirs) yield* fsyncDir(root, dir)
    yield* checkpoints.after("stage")

    const manifest = plan.files[plan.files.length - 1]!.rel
    yield* writeSibling(root, custody, stagedRel(plan.journal), new TextEncoder().encode(encodeStagingJournal({ entries, manifest })), 0o644)
    yield* recheck(root, custody, plan.journal)
    yield* renameRel(root, stagedRel(plan.journal), plan.journal)
    yield* fsyncDir(root, parentRel(plan.journal))
    yield* checkpoints.after("journal")

    for (let i = 0; i < plan.files.length; i++) {
      const rel = plan.files[i]!.rel
      yield* recheck(root, custody, rel)
      yield* renameRel(root, stagedRel(rel), rel)
      yield* fsyncDir(root, parentRel(rel))
      yield* checkpoints.after(`rename-${i + 1}`)
    }

    for (const entry of entries) {
      if (!entry.has_prev) continue
      yield* recheck(root, custody, entry.final)
      yield* unlinkRel(root, prevRel(entry.final))
    }
    for (const dir of dirs) yield* fsyncDir(root, dir)
    yield* checkpoints.after("backups-removed")
    yield* recheck(root, custody, plan.journal)
    yield* unlinkRel(root, plan.journal)
    yield* fsyncDir(root, parentRel(plan.journal))
    yield* checkpoints.after("journal-removed")
  })

/** True when every planned file already holds exactly these bytes (an idempotent re-run writes nothing). */
export const alreadyCommitted = (plan: CommitPlan) =>
  Effect.gen(function* () {
    const root = yield* canonicalRoot(plan.root)
    // Custody is checked even for a no-op: a symlinked write directory is refused either way.
    yield* takeCustody(root, uniqueDirs([...plan.files.map((f) => f.rel), plan.journal]), false)
    for (const file of plan.files) {
      const st = yield* lstatOption(root, file.rel)
      if (Option.isNone(st) || !st.value.isFile()) return false
      const current = yield* readNoFollow(root, file.rel).pipe(Effect.option)
      if (Option.isNone(current) || sha256(current.value.bytes) !== sha256(file.bytes)) return false
    }
    return true
  })
