/** `make()`, called on first use and kept: a module-level value (a compiled Schema parser) that start-up should not pay for. */
export const lazy = <A>(make: () => A): (() => A) => {
  let made: { readonly value: A } | undefined
  return () => (made ??= { value: make() }).value
}
