/** Full-match globs: `*` is zero or more characters, `?` exactly one; everything else literal. */
const escapeRegex = (s: string) => s.replace(/[.+^${}()|[\]\\]/g, "\\$&")

export const globToRegExp = (glob: string): RegExp => {
  let source = ""
  for (const ch of glob) source += ch === "*" ? "[\\s\\S]*" : ch === "?" ? "[\\s\\S]" : escapeRegex(ch)
  return new RegExp(`^${source}$`, "u")
}

/** A predicate for one glob; a glob without wildcards compiles to string equality. */
export const globMatcher = (glob: string): ((name: string) => boolean) => {
  if (!glob.includes("*") && !glob.includes("?")) return (name) => name === glob
  const re = globToRegExp(glob)
  return (name) => re.test(name)
}
