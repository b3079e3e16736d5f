/**
 * A PostgreSQL state URL is a secret (it may carry a password, and a user and host a reader need not
 * see): errors and output name the store by this label, and every detail passes through `redactUrl`.
 */
export const pgStoreLabel = (schema: string) => `postgres state store (schema ${schema})`

/** The URL's secret parts (the whole URL, its user, password and host), longest first. */
const secretParts = (url: string): ReadonlyArray<string> => {
  const parts = [url]
  try {
    const parsed = new URL(url)
    for (const part of [parsed.password, parsed.username, parsed.hostname, decodeURIComponent(parsed.password), decodeURIComponent(parsed.username)]) {
      if (part.length >= 3) parts.push(part)
    }
  } catch {
    // An unparsable URL is hidden whole; its parts cannot be told apart.
  }
  return [...new Set(parts)].sort((a, b) => b.length - a.length)
}

/** `text` with every secret part of `url` replaced by `***`. */
export const redactUrl = (text: string, url: string): string => {
  let out = text
  for (const part of secretParts(url)) out = out.split(part).join("***")
  return out
}
