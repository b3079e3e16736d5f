// core.js is the browser's script, bundled as text (scripts/build.mjs), never run by Node.
declare const text: string
export default text
