// Static files the build bundles as text (`with { type: "text" }`).
declare module "*.html" {
  const text: string
  export default text
}
declare module "*.css" {
  const text: string
  export default text
}
declare module "*.svg" {
  const text: string
  export default text
}
