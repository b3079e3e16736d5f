/** Full-match globs: `*` is zero or more characters, `?` exactly one; everything else literal. */
const escapeRegex = (s: string) => s.replace(/[.+^${}()|[\]\\]/g, "\\$&")

export const globToRegExp = (glob: string): RegExp => {
  let source = ""
  for (const ch of glob) source += ch === "*" ? "[\\s\\S]*" : ch === "?" ? "[\\s\\S]" : escapeRegex(ch)
  return new RegExp(`^${source}$`, "u")
}

/** `*`-only globs match by segments (no regex); `?` falls back to a regular expression. */
const starMatcher = (glob: string): ((name: string) => boolean) => {
  const parts = glob.split("*")
  const head = parts[0]!
  const tail = parts[parts.length - 1]!
  if (parts.length === 2) {
    const min = head.length + tail.length
    return (name) => name.length >= min && name.startsWith(head) && name.endsWith(tail)
  }
  const middle = parts.slice(1, -1)
  return (name) => {
    if (name.length < head.length + tail.length || !name.startsWith(head) || !name.endsWith(tail)) return false
    let at = head.length
    const end = name.length - tail.length
    for (const part of middle) {
      const found = name.indexOf(part, at)
      if (found === -1 || found + part.length > end) return false
      at = found + part.length
    }
    return true
  }
}

/** A predicate for one glob; a glob without wildcards compiles to string equality. */
export const globMatcher = (glob: string): ((name: string) => boolean) => {
  if (glob.includes("?")) {
    const re = globToRegExp(glob)
    return (name) => re.test(name)
  }
  if (!glob.includes("*")) return (name) => name === glob
  return starMatcher(glob)
}
