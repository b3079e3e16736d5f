import { Effect, Schema } from "effect"
import type { CacheBackend } from "../../schemas/adapters"
import { EnvelopeFromJson } from "../../schemas/discover"
import { normalizeEnvelope } from "../EltApi/envelope"
import { CacheEntryCorrupt } from "./errors"

/** Cached text → envelope, or `CacheEntryCorrupt`. */
export const decodeEntry = (backend: CacheBackend, text: string) =>
  Schema.decodeUnknown(EnvelopeFromJson)(text).pipe(
    Effect.map(normalizeEnvelope),
    Effect.mapError((e) => new CacheEntryCorrupt({ backend, detail: e.message }))
  )
