import { FileSystem, Path } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { readFileSync } from "node:fs"
import * as nodePath from "node:path"
import {
  InvalidProductName,
  ManifestUnreadable,
  ProductNameMismatch,
  SpecFileMissing,
  SpecRejected
} from "./errors"
import { decodeManifest, type LoweringManifest } from "./manifest"
import { parseSpec, type ProductSpec, specDigest } from "./spec"

/** Where a product's files live: everything is relative to the project root (the directory of pcli.toml). */
export interface ProductProject {
  /** Absolute project root. */
  readonly root: string
  /** The models directory relative to the root, POSIX separators (default `models`). */
  readonly modelsRel: string
}

export const PRODUCTS_DIR = "products"
export const FULFILLMENT_DIR = ".pcli/fulfillment"
export const MANIFEST_FILE = "lowering-manifest.json"
export const JOURNAL_FILE = "phase-staging.json"

export const specRel = (name: string) => `${PRODUCTS_DIR}/${name}.toml`
export const stateDirRel = (name: string) => `${FULFILLMENT_DIR}/${name}`
export const manifestRel = (name: string) => `${stateDirRel(name)}/${MANIFEST_FILE}`
export const journalRel = (name: string) => `${stateDirRel(name)}/${JOURNAL_FILE}`
export const contractRel = (project: ProductProject, model: string) => `${project.modelsRel}/${model}.contract.toml`
export const sidecarRel = (project: ProductProject, model: string) => `${project.modelsRel}/${model}.toml`
export const sqlRel = (project: ProductProject, model: string) => `${project.modelsRel}/${model}.sql`
/** Hex only: `:` is not allowed in Windows file names. */
export const snapshotRel = (name: string, digest: string) => `${stateDirRel(name)}/approved-${digest.replace(/^sha256:/, "")}.toml`

/** A name argument that can name a file stem under products/ (no separators, no leading dot). */
export const isSafeStem = (name: string): boolean =>
  name.length > 0 && name.length <= 200 && !name.startsWith(".") && !/[/\\\0]/.test(name)

export const requireSafeStem = (name: string) => (isSafeStem(name) ? Effect.void : Effect.fail(new InvalidProductName({ value: name })))

export const abs = (project: ProductProject, rel: string) => Effect.map(Path.Path, (path) => path.join(project.root, ...rel.split("/")))

const errorDetail = (e: { readonly _tag: string; readonly message: string; readonly reason?: string }) =>
  e._tag === "SystemError" && e.reason === "NotFound" ? "no such file" : e.reason === "PermissionDenied" ? "permission denied" : e.message

/** The raw bytes of `products/<name>.toml` and their digest. */
export interface SpecFile {
  readonly name: string
  readonly rel: string
  readonly bytes: Uint8Array
  readonly digest: string
}

export const readSpecFile = (project: ProductProject, name: string) =>
  Effect.gen(function* () {
    yield* requireSafeStem(name)
    const fs = yield* FileSystem.FileSystem
    const rel = specRel(name)
    const bytes = yield* fs.readFile(yield* abs(project, rel)).pipe(Effect.mapError((e) => new SpecFileMissing({ file: rel, detail: errorDetail(e) })))
    return { name, rel, bytes, digest: specDigest(bytes) } satisfies SpecFile
  })

/** The parser plus the verbs' stem check. */
export const checkSpec = (file: SpecFile): Either.Either<ProductSpec, SpecRejected | ProductNameMismatch> =>
  Either.match(parseSpec(file.bytes), {
    onLeft: (r) => Either.left(new SpecRejected({ file: file.rel, code: r.code, detail: r.detail })),
    onRight: (spec) =>
      spec.name === file.name ? Either.right(spec) : Either.left(new ProductNameMismatch({ file: file.rel, name: spec.name, stem: file.name }))
  })

export interface LoadedSpec extends SpecFile {
  readonly spec: ProductSpec
}

/** Reads and parses a spec; any failure is a command error. */
export const loadSpec = (project: ProductProject, name: string) =>
  Effect.flatMap(readSpecFile(project, name), (file) =>
    Either.match(checkSpec(file), { onLeft: Effect.fail, onRight: (spec) => Effect.succeed({ ...file, spec } satisfies LoadedSpec) })
  )

/** Stems of `products/*.toml`, sorted; none when the directory is absent. */
export const listSpecStems = (project: ProductProject) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* abs(project, PRODUCTS_DIR)
    const entries = yield* fs.readDirectory(dir).pipe(Effect.orElseSucceed(() => [] as Array<string>))
    return entries.filter((f) => f.endsWith(".toml") && isSafeStem(f.slice(0, -5))).map((f) => f.slice(0, -5)).sort()
  })

/** Names of `.pcli/fulfillment/*` directories, sorted. */
export const listStateDirs = (project: ProductProject) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const entries = yield* fs.readDirectory(yield* abs(project, FULFILLMENT_DIR)).pipe(Effect.orElseSucceed(() => [] as Array<string>))
    return entries.filter(isSafeStem).sort()
  })

/** A committed manifest when there is one; an unreadable or malformed one is `manifest-unreadable`. */
export const readManifest = (project: ProductProject, name: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const rel = manifestRel(name)
    const file = yield* abs(project, rel)
    const text = yield* fs.readFileString(file).pipe(
      Effect.map(Option.some),
      Effect.catchIf(
        (e) => e._tag === "SystemError" && e.reason === "NotFound",
        () => Effect.succeed(Option.none<string>())
      ),
      Effect.mapError((e) => new ManifestUnreadable({ path: rel, detail: errorDetail(e) }))
    )
    if (Option.isNone(text)) return Option.none<LoweringManifest>()
    return yield* Either.match(decodeManifest(text.value), {
      onLeft: (detail) => Effect.fail(new ManifestUnreadable({ path: rel, detail })),
      onRight: (m) => Effect.succeed(Option.some(m))
    })
  })

/**
 * `readManifest` for scans over every state directory: synchronous (hundreds of tiny files), total.
 * `Left` is `manifest-unreadable`; a missing manifest is `Right(None)`.
 */
export const scanManifest = (root: string, name: string): Either.Either<Option.Option<LoweringManifest>, ManifestUnreadable> => {
  const rel = manifestRel(name)
  const read = Either.try({
    try: () => readFileSync(nodePath.join(root, ...rel.split("/")), "utf8"),
    catch: (e) => e as NodeJS.ErrnoException
  })
  if (Either.isLeft(read)) {
    return read.left.code === "ENOENT" ? Either.right(Option.none()) : Either.left(new ManifestUnreadable({ path: rel, detail: read.left.code ?? String(read.left) }))
  }
  return Either.match(decodeManifest(read.right), {
    onLeft: (detail) => Either.left(new ManifestUnreadable({ path: rel, detail })),
    onRight: (m) => Either.right(Option.some(m))
  })
}

/** The output model `products/<name>.toml` declares (or its name): what `pcli audit --product` filters on. */
export const productOutputModel = (project: ProductProject, name: string) => Effect.map(loadSpec(project, name), (l) => l.spec.outputModel)
