import type { CommandExecutor } from "@effect/platform"
import { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import type { PlaygroundOutput, TourStep } from "../schemas/playground"
import { runGit } from "../services/Plans/git"
import { GitFailed } from "../services/Plans/errors"
import { PlaygroundNotEmpty, PlaygroundWriteFailed } from "../services/Project/errors"
import { PLAYGROUND_PRODUCT, playgroundFiles, productModelFiles } from "./playgroundFiles"

export { PLAYGROUND_PRODUCT, playgroundFiles } from "./playgroundFiles"

type Files = ReadonlyArray<readonly [string, string]>

const writeFiles = (dir: string, files: Files) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    for (const [relative, text] of files) {
      const file = path.join(dir, relative)
      const fail = (e: { message: string }) => new PlaygroundWriteFailed({ path: file, detail: e.message })
      yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(Effect.mapError(fail))
      yield* fs.writeFileString(file, text).pipe(Effect.mapError(fail))
    }
    return files.map(([relative]) => relative)
  })

/**
 * Writes the playground project into `dir` (created if missing). Refuses a directory that
 * already has entries, so nothing of the user's is overwritten.
 */
export const writePlayground = (
  dir: string
): Effect.Effect<ReadonlyArray<string>, PlaygroundNotEmpty | PlaygroundWriteFailed, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const fail = (e: { message: string }) => new PlaygroundWriteFailed({ path: dir, detail: e.message })
    if (yield* fs.exists(dir).pipe(Effect.mapError(fail))) {
      const entries = yield* fs.readDirectory(dir).pipe(Effect.mapError(fail))
      if (entries.length > 0) return yield* new PlaygroundNotEmpty({ dir })
    }
    return yield* writeFiles(dir, playgroundFiles)
  })

/** The identity the playground's one commit is made as: no git identity need be configured. */
const IDENTITY = ["-c", "user.name=pcli playground", "-c", "user.email=playground@pcli.invalid", "-c", "commit.gpgsign=false"]

const git = (args: ReadonlyArray<string>, cwd: string) =>
  Effect.flatMap(runGit(args, cwd), (r) =>
    r.code === 0 ? Effect.succeed(new TextDecoder().decode(r.stdout).trim()) : Effect.fail(new GitFailed({ command: `git ${args.join(" ")}`, detail: r.stderr }))
  )

/** `git init` and one commit of everything not ignored; the commit's id. */
const commitProject = (dir: string) =>
  Effect.gen(function* () {
    yield* git(["-c", "init.defaultBranch=main", "init", "-q"], dir)
    yield* git(["add", "-A"], dir)
    yield* git([...IDENTITY, "commit", "-q", "--no-verify", "-m", "pcli playground"], dir)
    return yield* git(["rev-parse", "HEAD"], dir)
  })

/** A path as a shell word: as typed when it is plain, else single-quoted. */
const shellWord = (text: string) => (/^[A-Za-z0-9._/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`)

/** The five steps, each a title and the lines to paste into a POSIX shell where `pcli playground` ran. */
export const playgroundTour = (typedDir: string): ReadonlyArray<TourStep> => [
  {
    title: "Build it: 7 models on the embedded DuckDB. stg_customers has a contract; revenue_by_region is a data product",
    commands: [`cd ${shellWord(typedDir)}`, "pcli run"]
  },
  {
    title: "An agent edits the contracted model and tries to build it: policy rule 0 refuses (exit 1, run-needs-plan)",
    commands: ["cp tour/stg_customers.sql models/stg_customers.sql", "PCLI_PRINCIPAL=agent pcli run --model stg_customers"]
  },
  {
    title: "A human plans the change against the commit, reviews it (findings, nothing written) and approves it",
    commands: [
      `PLAN=$(pcli plan --base HEAD --output json | node -p 'JSON.parse(require("fs").readFileSync(0)).plan_id')`,
      `pcli review "$PLAN"`,
      `pcli review "$PLAN" --approve`
    ]
  },
  { title: "Apply it: the policy and review gates pass, and the changed model and its readers rebuild", commands: [`pcli apply "$PLAN"`] },
  { title: "Every decision, the agent's refusal included, is in the ledger", commands: ["pcli audit"] }
]

export interface PlaygroundInput {
  readonly dir: string
  readonly cwd: string
}

/**
 * `pcli playground <dir>`: the sample project, its data product lowered (`lowerProduct`, run twice:
 * the contract, then the sidecar merged), committed to a new git repository, with the tour.
 */
export const playground = <E, R>(
  input: PlaygroundInput,
  lowerProduct: (root: string, product: string) => Effect.Effect<unknown, E, R>
): Effect.Effect<PlaygroundOutput, E | PlaygroundNotEmpty | PlaygroundWriteFailed | GitFailed, R | FileSystem.FileSystem | Path.Path | CommandExecutor.CommandExecutor> =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const dir = path.resolve(input.cwd, input.dir)
    // Checked first: without git there would be a project but no commit to plan against.
    yield* git(["--version"], input.cwd)
    const written = yield* writePlayground(dir)
    yield* lowerProduct(dir, PLAYGROUND_PRODUCT)
    const model = yield* writeFiles(dir, productModelFiles)
    yield* lowerProduct(dir, PLAYGROUND_PRODUCT)
    const commit = yield* commitProject(dir)
    return { command: "playground", dir, files: [...written, ...model, `models/${PLAYGROUND_PRODUCT}.contract.toml`], commit, tour: playgroundTour(input.dir) } satisfies PlaygroundOutput
  })
