import { Command, type CommandExecutor } from "@effect/platform"
import { Chunk, Effect, Stream } from "effect"
import { BaseRefNotFound, GitFailed } from "./errors"
import { groupModelFiles, type Revision } from "./revisions"

interface GitResult {
  readonly code: number
  readonly stdout: Uint8Array
  readonly stderr: string
}

const concat = (chunks: Chunk.Chunk<Uint8Array>): Uint8Array => {
  const parts = Chunk.toReadonlyArray(chunks)
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/** Runs `git <args>` in `cwd`, collecting stdout (bytes) and stderr; a non-zero exit is a result, not an error. */
export const runGit = (
  args: ReadonlyArray<string>,
  cwd: string,
  stdin?: string
): Effect.Effect<GitResult, GitFailed, CommandExecutor.CommandExecutor> => {
  const base = Command.make("git", ...args).pipe(Command.workingDirectory(cwd))
  const command = stdin === undefined ? base : Command.feed(base, stdin)
  return Effect.scoped(
    Effect.gen(function* () {
      const proc = yield* Command.start(command)
      const [stdout, stderr, code] = yield* Effect.all(
        [Stream.runCollect(proc.stdout), Stream.runCollect(proc.stderr), proc.exitCode],
        { concurrency: 3 }
      )
      return { code: Number(code), stdout: concat(stdout), stderr: new TextDecoder().decode(concat(stderr)).trim() }
    })
  ).pipe(Effect.mapError((e) => new GitFailed({ command: `git ${args.join(" ")}`, detail: e.message })))
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim()

const failed = (args: ReadonlyArray<string>, r: GitResult) =>
  new GitFailed({ command: `git ${args.join(" ")}`, detail: r.stderr === "" ? `exit ${r.code}` : r.stderr })

/** The commit `ref` names, seen from `cwd`'s repository. */
export const resolveCommit = (cwd: string, ref: string) =>
  Effect.gen(function* () {
    const inside = yield* runGit(["rev-parse", "--is-inside-work-tree"], cwd)
    if (inside.code !== 0) return yield* failed(["rev-parse", "--is-inside-work-tree"], inside)
    // `--end-of-options` keeps a ref that starts with `-` from being read as a flag.
    const args = ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]
    const r = yield* runGit(args, cwd)
    if (r.code !== 0 || text(r.stdout) === "") {
      return yield* new BaseRefNotFound({ ref, detail: r.stderr === "" ? "git rev-parse found no such commit" : r.stderr })
    }
    return text(r.stdout)
  })

/** Parses `git cat-file --batch` output: `<oid> <type> <size>\n<bytes>\n` per object. */
const parseBatch = (bytes: Uint8Array): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  const decoder = new TextDecoder()
  let at = 0
  while (at < bytes.length) {
    const eol = bytes.indexOf(10, at)
    if (eol === -1) break
    const [oid, type, size] = decoder.decode(bytes.subarray(at, eol)).split(" ")
    if (type === "missing" || oid === undefined || size === undefined) {
      at = eol + 1
      continue
    }
    const length = Number(size)
    out.set(oid, decoder.decode(bytes.subarray(eol + 1, eol + 1 + length)))
    at = eol + 1 + length + 1
  }
  return out
}

/** The models directory's files at `commit` (the directory as `modelsDir` sits in the work tree). */
export const readTreeAt = (
  modelsDir: string,
  commit: string
): Effect.Effect<Revision, GitFailed, CommandExecutor.CommandExecutor> =>
  Effect.gen(function* () {
    // Paths are relative to the working directory, so `./` is the models directory itself.
    const lsArgs = ["ls-tree", "-z", commit, "--", "./"]
    const ls = yield* runGit(lsArgs, modelsDir)
    if (ls.code !== 0) return yield* failed(lsArgs, ls)
    const entries = new TextDecoder()
      .decode(ls.stdout)
      .split("\0")
      .filter((line) => line !== "")
      .flatMap((line) => {
        const tab = line.indexOf("\t")
        const [, type, oid] = line.slice(0, tab).split(" ")
        const name = line.slice(tab + 1)
        const wanted = type === "blob" && oid !== undefined && !name.includes("/") && (name.endsWith(".sql") || name.endsWith(".toml"))
        return wanted ? [{ name, oid: oid! }] : []
      })
    if (entries.length === 0) return new Map()
    const cat = yield* runGit(["cat-file", "--batch"], modelsDir, entries.map((e) => `${e.oid}\n`).join(""))
    if (cat.code !== 0) return yield* failed(["cat-file", "--batch"], cat)
    const blobs = parseBatch(cat.stdout)
    const files = new Map<string, string>()
    for (const e of entries) {
      const body = blobs.get(e.oid)
      if (body !== undefined) files.set(e.name, body)
    }
    return groupModelFiles(files)
  })

/** Best-effort git identity for an approval: `user.email` (else `unknown`) and `user.name`. */
export const gitIdentity = (cwd: string): Effect.Effect<{ readonly email: string; readonly name?: string }, never, CommandExecutor.CommandExecutor> =>
  Effect.gen(function* () {
    const read = (key: string) =>
      runGit(["config", "--get", key], cwd).pipe(
        Effect.map((r) => (r.code === 0 && text(r.stdout) !== "" ? text(r.stdout) : undefined)),
        Effect.orElseSucceed(() => undefined)
      )
    const email = yield* read("user.email")
    const name = yield* read("user.name")
    return { email: email ?? "unknown", ...(name === undefined ? {} : { name }) }
  })
