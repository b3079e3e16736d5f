import { Effect, Either, Option } from "effect"
import { Checkpoints } from "../../platform/Checkpoints"
import type { ProductCompileOutput } from "../../schemas/products"
import { verifySnapshot } from "./approve"
import { alreadyCommitted, commitGeneration, type PlannedFile } from "./commit"
import { canonicalRoot, lstatOption, readNoFollow } from "./custody"
import { ManifestUnreadable, MaxLagUnrepresentable, ModelCollision, PhaseBRefused, SidecarUnparseable, VerifyNotPassed } from "./errors"
import { contractRel, journalRel, type LoadedSpec, manifestRel, type ProductProject, sidecarRel, sqlRel } from "./files"
import { readApproval } from "./journal"
import { buildManifest, mergeSidecar, renderContract } from "./lowering"
import { decodeManifest, encodeManifest, type LoweringManifest, sha256 } from "./manifest"
import { recoverGeneration } from "./recovery"
import { productId } from "./spec"
import { MAX_REPRESENTABLE_LAG } from "./specRules"
import { type PolicySource, verifyProduct } from "./verify"

const encoder = new TextEncoder()

/** The committed marker, read without following links: an unreadable one is `commit-io`, nothing changed. */
const readCommitted = (root: string, rel: string) =>
  Effect.gen(function* () {
    if (Option.isNone(yield* lstatOption(root, rel))) return Option.none<LoweringManifest>()
    const file = yield* readNoFollow(root, rel, "read commit marker")
    const text = yield* Effect.try({
      try: () => new TextDecoder("utf-8", { fatal: true }).decode(file.bytes),
      catch: () => new ManifestUnreadable({ path: rel, detail: "not UTF-8" })
    })
    return yield* Either.match(decodeManifest(text), {
      onLeft: (detail) => Effect.fail(new ManifestUnreadable({ path: rel, detail })),
      onRight: (m) => Effect.succeed(Option.some(m))
    })
  })

const exists = (root: string, rel: string) => Effect.map(lstatOption(root, rel), Option.isSome)

/** Phase A: the contract and a manifest whose Phase-B rows are pending. Refuses to adopt unclaimed model files. */
const phaseA = (project: ProductProject, root: string, loaded: LoadedSpec, committed: Option.Option<LoweringManifest>) =>
  Effect.gen(function* () {
    const model = loaded.spec.outputModel
    const claimed = Option.exists(committed, (m) => m.product_id === productId(loaded.spec.name) && m.output_model === model)
    if (!claimed) {
      for (const rel of [sqlRel(project, model), sidecarRel(project, model), contractRel(project, model)]) {
        if (yield* exists(root, rel)) return yield* new ModelCollision({ model, path: rel })
      }
    }
    const contract = encoder.encode(renderContract(loaded))
    const manifest = buildManifest(project, loaded, "lowered_contract", { [contractRel(project, model)]: sha256(contract) })
    return { manifest, artifacts: [{ rel: contractRel(project, model), bytes: contract }] }
  })

/** Phase B: the Phase-A generation must be intact; then the spec-owned keys are merged into the sidecar. */
const phaseB = (project: ProductProject, root: string, loaded: LoadedSpec, committed: LoweringManifest) =>
  Effect.gen(function* () {
    const model = loaded.spec.outputModel
    const contract = contractRel(project, model)
    const sidecar = sidecarRel(project, model)
    if (committed.product_id !== productId(loaded.spec.name) || committed.output_model !== model || committed.spec_path !== loaded.rel) {
      return yield* new PhaseBRefused({ code: "phase-a-identity-mismatch", detail: `${manifestRel(loaded.spec.name)} records ${committed.product_id} / ${committed.output_model} / ${committed.spec_path}` })
    }
    const contractSha = committed.artifacts[contract]
    if (contractSha === undefined) return yield* new PhaseBRefused({ code: "phase-a-manifest-incomplete", detail: `${manifestRel(loaded.spec.name)} does not list ${contract}` })
    const current = yield* readNoFollow(root, contract, "verify contract").pipe(Effect.option)
    if (Option.isNone(current)) return yield* new PhaseBRefused({ code: "phase-a-tampered", detail: `${contract}: missing or unreadable (expected ${contractSha})` })
    const found = sha256(current.value.bytes)
    if (found !== contractSha) {
      return yield* new PhaseBRefused({ code: "phase-a-tampered", detail: `${contract}: content drift (expected ${contractSha}, found ${found}); re-run after restoring it or changing the spec` })
    }
    const drafted = yield* readNoFollow(root, sidecar, "read sidecar")
    const text = yield* Effect.try({
      try: () => new TextDecoder("utf-8", { fatal: true }).decode(drafted.bytes),
      catch: () => new SidecarUnparseable({ path: sidecar, detail: "not UTF-8" })
    })
    const merged = yield* Either.match(mergeSidecar(loaded, text), {
      onLeft: (detail) => Effect.fail(new SidecarUnparseable({ path: sidecar, detail })),
      onRight: (t) => Effect.succeed(encoder.encode(t))
    })
    const manifest = buildManifest(project, loaded, "merged", { [contract]: contractSha, [sidecar]: sha256(merged) })
    return { manifest, artifacts: [{ rel: sidecar, bytes: merged }] }
  })

/**
 * `product compile`: verify must pass; an approval's snapshot is re-verified; a crashed commit is
 * recovered; then Phase A or B is chosen and committed (nothing is written when the bytes are unchanged).
 */
export const compileProduct = (project: ProductProject, name: string, source: PolicySource) =>
  Effect.gen(function* () {
    const checkpoints = yield* Checkpoints
    const verified = yield* verifyProduct(project, name, source)
    const { output } = verified
    if (output.status !== "pass" || verified.loaded === undefined) {
      return yield* new VerifyNotPassed({ product: name, status: output.status === "pass" ? "fail" : output.status, reason: output.reason, pasteBlock: output.paste_block })
    }
    const loaded = verified.loaded
    const { spec } = loaded
    if (spec.freshness !== undefined && spec.freshness.maxLagSeconds > MAX_REPRESENTABLE_LAG) {
      return yield* new MaxLagUnrepresentable({ maxLag: spec.freshness.maxLag })
    }
    const approval = yield* readApproval(name)
    if (Option.isSome(approval)) yield* verifySnapshot(project, approval.value)

    const root = yield* canonicalRoot(project.root)
    const model = spec.outputModel
    const manifestPath = manifestRel(name)
    const recovery = yield* recoverGeneration({
      root,
      journal: journalRel(name),
      manifest: manifestPath,
      allowedFinals: [manifestPath, contractRel(project, model), sidecarRel(project, model)]
    })
    yield* checkpoints.after("recovered")
    const committed = yield* readCommitted(root, manifestPath)
    const phaseBReady =
      Option.isSome(committed) && committed.value.spec_digest === loaded.digest && (yield* exists(root, sidecarRel(project, model)))
    const next = phaseBReady ? yield* phaseB(project, root, loaded, (committed as Option.Some<LoweringManifest>).value) : yield* phaseA(project, root, loaded, committed)
    const files: ReadonlyArray<PlannedFile> = [...next.artifacts, { rel: manifestPath, bytes: encoder.encode(encodeManifest(next.manifest)) }]
    const plan = { root, files, journal: journalRel(name) }
    if (!(yield* alreadyCommitted(plan))) yield* commitGeneration(plan, checkpoints)

    return {
      command: "product_compile",
      product_id: productId(name),
      spec_digest: loaded.digest,
      spec_path: loaded.rel,
      output_model: model,
      phase: next.manifest.phase,
      artifacts: Object.keys(next.manifest.artifacts)
        .sort()
        .map((path) => ({ path, sha256: next.manifest.artifacts[path]! })),
      manifest_path: manifestPath,
      recovery,
      ...Option.match(approval, {
        onNone: () => ({}),
        onSome: (a) => ({
          approval: { spec_digest: a.spec_digest, approver: a.approver, ...(a.approved_by === null ? {} : { approved_by: a.approved_by }), approved_at: a.approved_at, snapshot_path: a.snapshot_path },
          spec_matches_approval: a.spec_digest === loaded.digest
        })
      })
    } satisfies ProductCompileOutput
  })
