// Reads the build-time command manifest (manifest.ts) back into nodes the argv reader walks.
// No @effect/cli here: this is what the bin loads before deciding whether to load the bundle.
import type { ManifestCommand, ManifestNode } from "./manifest"

export const fromManifest = (node: ManifestNode): ManifestCommand => ({
  path: node.path,
  children: node.children.map(fromManifest),
  shape: () => node.shape,
  order: () => node.order,
  helpText: node.help
})
