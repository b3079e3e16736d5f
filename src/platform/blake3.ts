// The one module that loads a BLAKE3 implementation: @noble/hashes for synchronous one-shot hashes (no
// init, nothing compiled at start-up), hash-wasm's BLAKE3 alone (not every algorithm's WASM) where
// throughput counts (`audit --verify`'s walk), compiled once per process on first use.
import { blake3 } from "@noble/hashes/blake3.js"
import { bytesToHex } from "@noble/hashes/utils.js"
import type { IHasher } from "hash-wasm"

/** Hex BLAKE3 of `bytes`: the reference every faster hasher is property-tested against. */
export const blake3Hex = (bytes: Uint8Array): string => bytesToHex(blake3(bytes))

/** Where hash-wasm's BLAKE3 module is, for a worker that loads it by path (an `eval` worker cannot resolve pcli's packages). */
export const blake3WasmModulePath = (): string => require.resolve("hash-wasm/dist/blake3.umd.min.js")

type Blake3Module = { readonly createBLAKE3: () => Promise<IHasher> }
let wasmModule: Promise<Blake3Module> | undefined

// A UMD file: imported from ESM (the benches, vitest) its exports are the default export.
const loadWasmModule = () =>
  // @ts-expect-error the UMD file has no declarations of its own (hash-wasm's are those of its index)
  import("hash-wasm/dist/blake3.umd.min.js").then((m: Blake3Module & { readonly default?: Blake3Module }) => m.default ?? m)

/** A hash-wasm BLAKE3 hasher (8–17× @noble on the ledger's rows): its module loads once per process, on first use. */
export const createBlake3Hasher = (): Promise<IHasher> => (wasmModule ??= loadWasmModule()).then((m) => m.createBLAKE3())
