import { Effect, Either } from "effect"
import { chmodSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { recoverGeneration } from "../../src/services/Products/recovery"
import { draftedSidecar, json, pcli, productProject, snapshotTree, unprivileged } from "./support"

const MODEL = "orders_weekly_mart"
const CONTRACT = `models/${MODEL}.contract.toml`
const SIDECAR = `models/${MODEL}.toml`
const STATE = ".pcli/fulfillment/orders_weekly"
const MANIFEST = `${STATE}/lowering-manifest.json`
const JOURNAL = `${STATE}/phase-staging.json`

const compile = (root: string, env: Record<string, string> = {}) => pcli(root, ["product", "compile", "orders_weekly", "--output", "json"], env)
const errorCode = (r: { stdout: string }) => (json(r as never)["error"] as { code: string; message: string } | undefined)?.code
const errorMessage = (r: { stdout: string }) => (json(r as never)["error"] as { message: string }).message
const clone = (root: string) => {
  const dir = mkdtempSync(join(tmpdir(), "pcli-harden-"))
  cpSync(root, dir, { recursive: true, verbatimSymlinks: true })
  return dir
}

const scope = (root: string) => ({
  root,
  journal: JOURNAL,
  manifest: MANIFEST,
  allowedFinals: [MANIFEST, CONTRACT, SIDECAR]
})
const recover = (root: string) => Effect.runPromise(Effect.either(recoverGeneration(scope(root))))
const failureCode = (r: Either.Either<unknown, { readonly code: string }>) => (Either.isLeft(r) ? r.left.code : "ok")

/** Templates: a fresh product crashed after each of two steps, and a Phase B crashed after its journal. */
let freshAfterJournal: string
let freshAfterRename1: string
let phaseBAfterJournal: string

beforeAll(async () => {
  freshAfterJournal = productProject()
  expect((await compile(freshAfterJournal, { PCLI_TEST_CRASH_AFTER: "journal" })).code).toBe(-1)
  freshAfterRename1 = productProject()
  expect((await compile(freshAfterRename1, { PCLI_TEST_CRASH_AFTER: "rename-1" })).code).toBe(-1)
  phaseBAfterJournal = productProject()
  expect((await compile(phaseBAfterJournal)).code).toBe(0)
  writeFileSync(join(phaseBAfterJournal, SIDECAR), draftedSidecar)
  expect((await compile(phaseBAfterJournal, { PCLI_TEST_CRASH_AFTER: "journal" })).code).toBe(-1)
  expect(existsSync(join(phaseBAfterJournal, `${SIDECAR}.ff-prev`))).toBe(true)
})

describe("commit hardening (unreadable markers and files, backups, directory custody)", () => {
  it("a commit marker swapped for a link is commit-io, and nothing changes", async () => {
    const root = productProject()
    expect((await compile(root)).code).toBe(0)
    renameSync(join(root, MANIFEST), join(root, `${STATE}/real.json`))
    symlinkSync("real.json", join(root, MANIFEST))
    const before = snapshotTree(root)
    const r = await compile(root)
    expect([r.code, errorCode(r), errorMessage(r)]).toEqual([1, "commit-io", expect.stringContaining(`read commit marker ${MANIFEST} failed`)])
    expect(snapshotTree(root)).toEqual(before)
  })

  it("a commit marker that cannot be read (permission) is commit-io, nothing changed, journal kept", async () => {
    const root = clone(freshAfterRename1)
    // Roll the crashed commit forward by hand up to the marker rename, then make the marker unreadable.
    renameSync(join(root, `${MANIFEST}.ff-staged`), join(root, MANIFEST))
    chmodSync(join(root, MANIFEST), 0o000)
    const runAs = unprivileged(root)
    const before = snapshotTree(root)
    const r = await runAs(["product", "compile", "orders_weekly", "--output", "json"])
    expect([r.code, errorCode(r)]).toEqual([1, "commit-io"])
    expect(errorMessage(r)).toContain(MANIFEST)
    expect(snapshotTree(root)).toEqual(before)
    expect(existsSync(join(root, JOURNAL))).toBe(true)
  })

  it("an uncommitted new file recovery cannot read is commit-io: the file is left alone, the journal kept", async () => {
    const root = clone(freshAfterRename1)
    chmodSync(join(root, CONTRACT), 0o000)
    const runAs = unprivileged(root)
    const before = snapshotTree(root)
    const r = await runAs(["product", "compile", "orders_weekly", "--output", "json"])
    expect([r.code, errorCode(r)]).toEqual([1, "commit-io"])
    expect(errorMessage(r)).toContain(`identify uncommitted file ${CONTRACT}`)
    expect(existsSync(join(root, CONTRACT))).toBe(true)
    expect(existsSync(join(root, JOURNAL))).toBe(true)
    expect(snapshotTree(root)).toEqual(before)
  })

  it("a .ff-prev the journal does not record is commit-unexpected-backup naming it; deleting it lets recovery finish", async () => {
    const root = clone(freshAfterJournal)
    writeFileSync(join(root, `${CONTRACT}.ff-prev`), "someone's old contract\n")
    const r = await compile(root)
    expect([r.code, errorCode(r)]).toEqual([1, "commit-unexpected-backup"])
    expect(errorMessage(r)).toContain(`${CONTRACT}.ff-prev`)
    expect(existsSync(join(root, JOURNAL))).toBe(true)
    rmSync(join(root, `${CONTRACT}.ff-prev`))
    const again = await compile(root)
    expect([again.code, json(again)["recovery"], json(again)["phase"]]).toEqual([0, "rolled_back", "lowered_contract"])
  })

  it("a backup that is a symlink, or has a second hard link, is commit-io and nothing is restored", async () => {
    const linked = clone(phaseBAfterJournal)
    const prev = join(linked, `${SIDECAR}.ff-prev`)
    renameSync(prev, join(linked, "elsewhere.toml"))
    symlinkSync(join(linked, "elsewhere.toml"), prev)
    let before = snapshotTree(linked)
    const r1 = await compile(linked)
    expect([r1.code, errorCode(r1), errorMessage(r1)]).toEqual([1, "commit-io", expect.stringContaining("symlink; nothing restored")])
    expect(snapshotTree(linked)).toEqual(before)

    const hard = clone(phaseBAfterJournal)
    linkSync(join(hard, `${MANIFEST}.ff-prev`), join(hard, "second-link.json"))
    before = snapshotTree(hard)
    const r2 = await compile(hard)
    expect([r2.code, errorCode(r2), errorMessage(r2)]).toEqual([1, "commit-io", expect.stringContaining("2 hard links; nothing restored")])
    expect(snapshotTree(hard)).toEqual(before)
  })

  it("a write directory that is a symlink, even inside the project, is commit-io (directory custody)", async () => {
    const root = productProject()
    mkdirSync(join(root, "models_real"))
    symlinkSync("models_real", join(root, "models"))
    const r = await compile(root)
    expect([r.code, errorCode(r), errorMessage(r)]).toEqual([1, "commit-io", expect.stringContaining("taking directory custody of models failed: it is a symlink")])
    expect(snapshotTree(join(root, "models_real"))).toEqual({})

    const state = productProject()
    mkdirSync(join(state, ".pcli/elsewhere"), { recursive: true })
    mkdirSync(join(state, ".pcli/fulfillment"), { recursive: true })
    symlinkSync("../elsewhere", join(state, STATE))
    const r2 = await compile(state)
    expect([r2.code, errorCode(r2)]).toEqual([1, "commit-io"])
    expect(snapshotTree(join(state, ".pcli/elsewhere"))).toEqual({})
  })

  it("a symlinked target leaf is refused before staging (commit-symlinked-target)", async () => {
    const root = productProject()
    mkdirSync(join(root, "models"))
    writeFileSync(join(root, "outside.toml"), "x = 1\n")
    symlinkSync("../outside.toml", join(root, `${CONTRACT}.ff-staged`))
    const r = await compile(root)
    expect([r.code, errorCode(r)]).toEqual([1, "commit-symlinked-target"])
    expect(readFileSync(join(root, "outside.toml"), "utf8")).toBe("x = 1\n")
  })
})

describe("staging journal validation: refused before anything mutates", () => {
  const forge = (edit: (journal: { entries: Array<Record<string, unknown>>; manifest: string }) => unknown, prepare?: (root: string) => void) => {
    const root = clone(phaseBAfterJournal)
    const journal = JSON.parse(readFileSync(join(root, JOURNAL), "utf8"))
    const edited = edit(journal) ?? journal
    writeFileSync(join(root, JOURNAL), typeof edited === "string" ? edited : JSON.stringify(edited, null, 2))
    prepare?.(root)
    return root
  }

  const cases: ReadonlyArray<readonly [string, string, () => string]> = [
    ["not JSON", "staging-journal-corrupt", () => forge(() => "{ truncated")],
    ["has_prev as a string", "staging-journal-corrupt", () => forge((j) => void (j.entries[0]!["has_prev"] = "yes"))],
    ["an unknown key", "staging-journal-corrupt", () => forge((j) => void (j.entries[0]!["note"] = "x"))],
    ["another manifest path", "staging-journal-corrupt", () => forge((j) => void (j.manifest = ".pcli/fulfillment/other/lowering-manifest.json"))],
    ["a final repeated in another case", "staging-journal-corrupt", () => forge((j) => void j.entries.push({ ...j.entries[0]!, final: SIDECAR.toUpperCase() }))],
    ["no manifest entry", "staging-journal-corrupt", () => forge((j) => void (j.entries = j.entries.filter((e) => e["final"] !== MANIFEST)))],
    ["another product's manifest", "staging-journal-forbidden-entry", () => forge((j) => void (j.entries[0]!["final"] = ".pcli/fulfillment/other/lowering-manifest.json"))],
    ["a staging journal", "staging-journal-forbidden-entry", () => forge((j) => void (j.entries[0]!["final"] = "models/phase-staging.json"))],
    ["a traversing path", "staging-journal-unsafe-path", () => forge((j) => void (j.entries[0]!["final"] = "../outside.toml"))],
    ["an absolute path", "staging-journal-unsafe-path", () => forge((j) => void (j.entries[0]!["final"] = "/etc/passwd"))],
    ["a non-canonical path", "staging-journal-unsafe-path", () => forge((j) => void (j.entries[0]!["final"] = "models//orders_weekly_mart.toml"))],
    [
      "a symlinked ancestor",
      "staging-journal-unsafe-path",
      () => forge((j) => void (j.entries[0]!["final"] = "linked/x.toml"), (root) => symlinkSync(tmpdir(), join(root, "linked")))
    ],
    [
      "a symlinked final",
      "staging-journal-unsafe-path",
      () =>
        forge(
          () => undefined,
          (root) => {
            renameSync(join(root, SIDECAR), join(root, "models/real.toml"))
            symlinkSync("real.toml", join(root, SIDECAR))
          }
        )
    ],
    ["a foreign file", "staging-journal-foreign-entry", () => forge((j) => void (j.entries[0]!["final"] = "models/other_model.toml"))]
  ]

  for (const [what, code, make] of cases) {
    it(`${what}: ${code}`, async () => {
      const root = make()
      const before = snapshotTree(root)
      const r = await recover(root)
      expect(failureCode(r)).toBe(code)
      expect(snapshotTree(root)).toEqual(before)
    })
  }

  it("the untouched journal recovers (rolled back) and a re-run is a no-op", async () => {
    const root = clone(phaseBAfterJournal)
    const sidecarBefore = readFileSync(join(root, SIDECAR), "utf8")
    expect(await recover(root)).toEqual(Either.right("rolled_back"))
    expect(readFileSync(join(root, SIDECAR), "utf8")).toBe(sidecarBefore)
    expect(existsSync(join(root, `${SIDECAR}.ff-prev`))).toBe(false)
    expect(existsSync(join(root, JOURNAL))).toBe(false)
    expect(await recover(root)).toEqual(Either.right("none"))
  })
})
