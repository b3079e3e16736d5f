import * as NodeCrypto from "node:crypto"

// The compile cache's content key, in a module of its own so the read-ahead worker's bundle can use it.

type HashInput = string | Uint8Array
const oneShot = (NodeCrypto as { hash?: (algorithm: string, data: HashInput, encoding: "base64url") => string }).hash

/** SHA-1 in base64url: a cache key, not a security boundary (sha1 is the fastest here). */
export const sha1 = (data: HashInput): string =>
  oneShot !== undefined ? oneShot("sha1", data, "base64url") : NodeCrypto.createHash("sha1").update(data).digest("base64url")

/** Content hash of one file's text. */
export const contentHash = (text: HashInput): string => sha1(text)
