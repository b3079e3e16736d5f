import { Effect, Either, Option } from "effect"
import type { RecoveryOutcome } from "../../schemas/products"
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
  unlinkRel
} from "./custody"
import { CommitIo, CommitUnexpectedBackup, StagingJournalRefused, type StagingJournalCode } from "./errors"
import { JOURNAL_FILE, MANIFEST_FILE } from "./files"
import { isCanonicalRelative, sha256 } from "./manifest"
import { decodeStagingJournal, type StagingJournal } from "./stagingJournal"

/** What recovery may touch: derived from the current spec, never from any file on disk. */
export interface RecoveryScope {
  readonly root: string
  readonly journal: string
  readonly manifest: string
  /** Every final a journal of this product may name (own manifest, contract, sidecar). */
  readonly allowedFinals: ReadonlyArray<string>
}

const refuse = (code: StagingJournalCode, journal: string, detail: string) => Effect.fail(new StagingJournalRefused({ code, journal, detail }))

const baseName = (rel: string) => rel.slice(rel.lastIndexOf("/") + 1)

/** Containment of one journaled path: canonical, no symlink or non-directory on the way, no symlink or directory at the leaf or its staged sibling. */
const unsafeReason = (root: string, rel: string) =>
  Effect.gen(function* () {
    if (!isCanonicalRelative(rel)) return Option.some(`${JSON.stringify(rel)} is not a canonical project-relative path`)
    const parts = rel.split("/")
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/")
      const st = yield* lstatOption(root, dir)
      if (Option.isNone(st)) break
      if (st.value.isSymbolicLink()) return Option.some(`${rel}: ancestor ${dir} is a symlink`)
      if (!st.value.isDirectory()) return Option.some(`${rel}: ancestor ${dir} is not a directory`)
    }
    const leaf = yield* lstatOption(root, rel)
    if (Option.isSome(leaf) && leaf.value.isSymbolicLink()) return Option.some(`${rel} is a symlink`)
    if (Option.isSome(leaf) && leaf.value.isDirectory()) return Option.some(`${rel} is a directory`)
    // A symlinked backup is refused later as commit-io ("nothing restored"); a staged one here.
    const staged = yield* lstatOption(root, stagedRel(rel))
    if (Option.isSome(staged) && staged.value.isSymbolicLink()) return Option.some(`${stagedRel(rel)} is a symlink`)
    return Option.none<string>()
  })

/** Every check of the table, before anything mutates; the first failure refuses the whole journal. */
const validate = (scope: RecoveryScope, root: string, journal: StagingJournal) =>
  Effect.gen(function* () {
    const j = scope.journal
    if (journal.manifest !== scope.manifest) return yield* refuse("staging-journal-corrupt", j, `names manifest ${JSON.stringify(journal.manifest)}, not ${scope.manifest}`)
    const seen = new Set<string>()
    for (const e of journal.entries) {
      const key = e.final.toLowerCase()
      if (seen.has(key)) return yield* refuse("staging-journal-corrupt", j, `final ${JSON.stringify(e.final)} is listed twice`)
      seen.add(key)
    }
    if (journal.entries.filter((e) => e.final === scope.manifest).length !== 1) {
      return yield* refuse("staging-journal-corrupt", j, "the manifest entry must appear exactly once")
    }
    for (const e of journal.entries) {
      const base = baseName(e.final)
      if (base === JOURNAL_FILE || (base === MANIFEST_FILE && e.final !== scope.manifest)) {
        return yield* refuse("staging-journal-forbidden-entry", j, `entry ${JSON.stringify(e.final)} names another product's or phase's bookkeeping file`)
      }
    }
    for (const e of journal.entries) {
      const reason = yield* unsafeReason(root, e.final)
      if (Option.isSome(reason)) return yield* refuse("staging-journal-unsafe-path", j, reason.value)
    }
    for (const e of journal.entries) {
      if (!scope.allowedFinals.includes(e.final)) {
        return yield* refuse("staging-journal-foreign-entry", j, `entry ${JSON.stringify(e.final)} is not one of this product's files (${scope.allowedFinals.join(", ")})`)
      }
    }
  })

/** A backup about to be restored must be a regular, singly-linked file reached without a symlink. */
const checkBackup = (root: string, rel: string) =>
  Effect.gen(function* () {
    const st = yield* lstatOption(root, rel)
    if (Option.isNone(st)) return false
    if (st.value.isSymbolicLink()) return yield* new CommitIo({ action: "restore", path: rel, detail: "the backup is a symlink; nothing restored" })
    const file = yield* readNoFollow(root, rel, "restore")
    if (file.nlink > 1) return yield* new CommitIo({ action: "restore", path: rel, detail: `the backup has ${file.nlink} hard links; nothing restored` })
    return true
  })

const removeSiblings = (root: string, custody: Custody, final: string) =>
  Effect.gen(function* () {
    yield* recheck(root, custody, final)
    yield* unlinkRel(root, stagedRel(final))
    yield* unlinkRel(root, prevRel(final))
  })

/**
 * Without a journal no rename happened (the journal precedes the first rename and outlives the
 * last backup), so leftover regular `.ff-staged`/`.ff-prev` siblings are an abandoned staging: removed.
 */
const removeStrays = (root: string, scope: RecoveryScope) =>
  Effect.gen(function* () {
    const finals = [...scope.allowedFinals, scope.journal]
    const strays: Array<string> = []
    for (const final of finals) {
      for (const sibling of [stagedRel(final), prevRel(final)]) {
        const st = yield* lstatOption(root, sibling)
        if (Option.isSome(st) && st.value.isFile()) strays.push(sibling)
      }
    }
    if (strays.length === 0) return "none" as RecoveryOutcome
    const custody = yield* takeCustody(root, [...new Set(strays.map(parentRel))], false)
    for (const stray of strays) {
      yield* recheck(root, custody, stray)
      yield* unlinkRel(root, stray)
    }
    return "rolled_back" as RecoveryOutcome
  })

/**
 * Finishes or undoes a crashed commit. No journal: nothing to do. Marker committed (its bytes hash
 * to the journaled sha): the new generation stands. Otherwise the journaled backups come back.
 */
export const recoverGeneration = (scope: RecoveryScope) =>
  Effect.gen(function* () {
    const root = yield* canonicalRoot(scope.root)
    const journalStat = yield* lstatOption(root, scope.journal)
    if (Option.isNone(journalStat)) return yield* removeStrays(root, scope)
    const journalUnsafe = yield* unsafeReason(root, scope.journal)
    if (Option.isSome(journalUnsafe)) return yield* refuse("staging-journal-unsafe-path", scope.journal, journalUnsafe.value)
    const raw = yield* readNoFollow(root, scope.journal, "read staging journal")
    const journal = yield* Either.match(decodeStagingJournal(raw.bytes), {
      onLeft: (detail) => refuse("staging-journal-corrupt", scope.journal, detail),
      onRight: Effect.succeed
    })
    yield* validate(scope, root, journal)

    const dirs = [...new Set([...journal.entries.map((e) => parentRel(e.final)), parentRel(scope.journal)].filter((d) => d !== ""))]
    const custody = yield* takeCustody(root, dirs, false)
    const marker = journal.entries.find((e) => e.final === scope.manifest)!
    const markerStat = yield* lstatOption(root, scope.manifest)
    // An unreadable marker (permissions, a swapped link) is never guessed at: nothing changes.
    const committed = Option.isSome(markerStat) && sha256((yield* readNoFollow(root, scope.manifest, "read commit marker")).bytes) === marker.staged_sha

    if (committed) {
      for (const e of journal.entries) yield* removeSiblings(root, custody, e.final)
    } else {
      for (const e of journal.entries) if (e.has_prev) yield* checkBackup(root, prevRel(e.final))
      for (const e of journal.entries) {
        yield* recheck(root, custody, e.final)
        const prevExists = Option.isSome(yield* lstatOption(root, prevRel(e.final)))
        if (e.has_prev && prevExists) {
          if (!(yield* checkBackup(root, prevRel(e.final)))) continue
          yield* renameRel(root, prevRel(e.final), e.final)
        } else if (!e.has_prev && prevExists) {
          return yield* new CommitUnexpectedBackup({ backup: prevRel(e.final), final: e.final })
        } else if (!e.has_prev && Option.isSome(yield* lstatOption(root, e.final))) {
          const current = yield* readNoFollow(root, e.final, "identify uncommitted file")
          if (sha256(current.bytes) === e.staged_sha) yield* unlinkRel(root, e.final)
        }
        yield* unlinkRel(root, stagedRel(e.final))
      }
    }
    for (const dir of dirs) yield* fsyncDir(root, dir)
    yield* recheck(root, custody, scope.journal)
    yield* unlinkRel(root, scope.journal)
    yield* fsyncDir(root, parentRel(scope.journal))
    return (committed ? "rolled_forward" : "rolled_back") as RecoveryOutcome
  })
