import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { commitStaged, createFileExclusive, isStagedName, stagedSibling, writeFileAtomic } from "../../src/platform/atomicWrite"

const run = <A, E>(effect: Effect.Effect<A, E, NodeContext.NodeContext>) => Effect.runPromise(effect.pipe(Effect.provide(NodeContext.layer)))
const runExit = <A, E>(effect: Effect.Effect<A, E, NodeContext.NodeContext>) => Effect.runPromise(Effect.exit(effect).pipe(Effect.provide(NodeContext.layer)))
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "pcli-atomic-"))
const onlyVisible = (dir: string) => fs.readdirSync(dir).sort()

describe("writeFileAtomic", () => {
  it("creates missing directories, replaces an existing file and leaves no staged sibling", async () => {
    const dir = tmp()
    const target = path.join(dir, "nested", "deeper", "entry.json")
    await run(writeFileAtomic(target, "one"))
    await run(writeFileAtomic(target, new TextEncoder().encode("two")))
    expect(fs.readFileSync(target, "utf8")).toBe("two")
    expect(onlyVisible(path.dirname(target))).toEqual(["entry.json"])
  })

  it("a failed write leaves the old file and no staged sibling behind", async () => {
    const dir = tmp()
    const target = path.join(dir, "entry.json")
    fs.writeFileSync(target, "old")
    fs.mkdirSync(path.join(dir, "blocked"))
    // Renaming a file over a non-empty directory fails after the bytes were staged.
    fs.writeFileSync(path.join(dir, "blocked", "x"), "")
    const exit = await runExit(writeFileAtomic(path.join(dir, "blocked"), "new"))
    expect(exit._tag).toBe("Failure")
    expect(fs.readFileSync(target, "utf8")).toBe("old")
    expect(onlyVisible(dir)).toEqual(["blocked", "entry.json"])
  })

  it("concurrent writers of one target each stage under their own name; the last rename wins whole", async () => {
    const dir = tmp()
    const target = path.join(dir, "race.txt")
    const bodies = Array.from({ length: 12 }, (_, i) => `writer-${i}-`.repeat(2000))
    await run(Effect.forEach(bodies, (b) => writeFileAtomic(target, b), { concurrency: "unbounded" }))
    expect(bodies).toContain(fs.readFileSync(target, "utf8"))
    expect(onlyVisible(dir)).toEqual(["race.txt"])
  })
})

describe("createFileExclusive", () => {
  it("creates once; a second create answers false and the first bytes stay", async () => {
    const dir = tmp()
    const target = path.join(dir, "marker.json")
    expect(await run(createFileExclusive(target, "first"))).toBe(true)
    expect(await run(createFileExclusive(target, "second"))).toBe(false)
    expect(fs.readFileSync(target, "utf8")).toBe("first")
    expect(onlyVisible(dir)).toEqual(["marker.json"])
  })

  it("of many concurrent creators exactly one wins", async () => {
    const dir = tmp()
    const target = path.join(dir, "once.json")
    const results = await run(Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) => createFileExclusive(target, `c${i}`), { concurrency: "unbounded" }))
    expect(results.filter((r) => r)).toHaveLength(1)
    expect(fs.readFileSync(target, "utf8")).toBe(`c${results.indexOf(true)}`)
    expect(onlyVisible(dir)).toEqual(["once.json"])
  })
})

describe("commitStaged", () => {
  it("publishes a file someone else staged; in create mode an existing target is kept and the staged file removed", async () => {
    const dir = tmp()
    const staged = path.join(dir, "tmp-output.parquet")
    fs.writeFileSync(staged, "bytes-1")
    expect(await run(commitStaged(staged, path.join(dir, "h.parquet"), "create"))).toBe(true)
    fs.writeFileSync(staged, "bytes-2")
    expect(await run(commitStaged(staged, path.join(dir, "h.parquet"), "create"))).toBe(false)
    expect(fs.readFileSync(path.join(dir, "h.parquet"), "utf8")).toBe("bytes-1")
    expect(onlyVisible(dir)).toEqual(["h.parquet"])
  })

  it("staged names are recognised for any target name", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }).filter((s) => !s.includes("/") && !s.includes("\0")), (name) => {
        expect(isStagedName(path.posix.basename(stagedSibling(`/x/${name}`, path.posix)))).toBe(true)
      })
    )
  })
})
