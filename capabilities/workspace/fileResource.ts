/**
 * The resource template `workspace://{+path}`: every file of the workspace
 * as an MCP resource, read through the `Workspace` service (so the root, the
 * deny list and the symlink checks apply) and listed page by page in
 * `resources/list`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Resource from "../../src/Resource.ts"
import { InvalidArgument, Workspace } from "../../src/Workspace.ts"

/**
 * The files listed per page of `resources/list`.
 *
 * **Example**
 *
 * ```ts
 * import { filesPerPage } from "./capabilities/workspace/fileResource.ts"
 *
 * filesPerPage // => 100
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const filesPerPage = 100

const mimeTypes: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  log: "text/plain",
  text: "text/plain",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  jsx: "text/javascript",
  ts: "text/x-typescript",
  mts: "text/x-typescript",
  cts: "text/x-typescript",
  tsx: "text/x-typescript",
  json: "application/json",
  jsonl: "application/jsonl",
  map: "application/json",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  py: "text/x-python",
  rb: "text/x-ruby",
  rs: "text/x-rust",
  go: "text/x-go",
  java: "text/x-java",
  kt: "text/x-kotlin",
  c: "text/x-c",
  h: "text/x-c",
  cpp: "text/x-c++",
  hpp: "text/x-c++",
  cs: "text/x-csharp",
  swift: "text/x-swift",
  php: "text/x-php",
  sh: "application/x-sh",
  bash: "application/x-sh",
  sql: "application/sql",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/vnd.microsoft.icon",
  bmp: "image/bmp",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  wasm: "application/wasm",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf"
}

const binaryTypes = /^(image\/(?!svg)|audio\/|video\/|font\/|application\/(pdf|zip|gzip|x-tar|wasm))/

/**
 * The MIME type of a path, guessed from its extension (`undefined` when the
 * extension is unknown).
 *
 * **Example**
 *
 * ```ts
 * import { mimeTypeOf } from "./capabilities/workspace/fileResource.ts"
 *
 * mimeTypeOf("src/main.ts") // => "text/x-typescript"
 * mimeTypeOf("Makefile") // => undefined
 * ```
 *
 * @category utils
 * @since 0.1.0
 */
export const mimeTypeOf = (path: string): string | undefined => {
  const name = path.slice(path.lastIndexOf("/") + 1)
  const dot = name.lastIndexOf(".")
  return dot <= 0 ? undefined : mimeTypes[name.slice(dot + 1).toLowerCase()]
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/**
 * The contents of a file read as a resource: one `text` item when its bytes
 * are UTF-8 without NUL bytes and its MIME type is not a binary one (images
 * other than SVG, audio, video, fonts, PDF, archives, WebAssembly), else one
 * `blob` item. The MIME type is `mimeType` when given, else guessed from the
 * path's extension ({@link mimeTypeOf}); when neither knows it, text is
 * `text/plain` and a blob `application/octet-stream`.
 *
 * **Example**
 *
 * ```ts
 * import { contentsOf } from "./capabilities/workspace/fileResource.ts"
 *
 * const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])
 * contentsOf("notes/todo.md", new TextEncoder().encode("# Todo\n")) // => [{ text: "# Todo\n", mimeType: "text/markdown" }]
 * contentsOf("assets/logo.png", png) // => [{ blob: png, mimeType: "image/png" }] (no NUL byte, still binary)
 * contentsOf("SKILL.md", new TextEncoder().encode("---\n"), "text/markdown") // => [{ text: "---\n", mimeType: "text/markdown" }]
 * ```
 *
 * @category utils
 * @since 0.2.0
 */
export const contentsOf = (
  path: string,
  bytes: Uint8Array,
  mimeType: string | undefined = mimeTypeOf(path)
): ReadonlyArray<Resource.Item> => {
  const text =
    (mimeType !== undefined && binaryTypes.test(mimeType)) || bytes.includes(0)
      ? undefined
      : Result.getOrUndefined(Result.try(() => utf8.decode(bytes)))
  return text !== undefined
    ? [{ text, mimeType: mimeType ?? "text/plain" }]
    : [{ blob: bytes, mimeType: mimeType ?? "application/octet-stream" }]
}

/**
 * The `workspace://` URI of a root-relative path: each segment
 * percent-encoded, `/` kept.
 *
 * **Example**
 *
 * ```ts
 * import { uriOf } from "./capabilities/workspace/fileResource.ts"
 *
 * uriOf("docs/read me.md") // => "workspace://docs/read%20me.md"
 * ```
 *
 * @category utils
 * @since 0.1.0
 */
export const uriOf = (path: string): string => `workspace://${path.split("/").map(encodeURIComponent).join("/")}`

/**
 * The template `workspace://{+path}` (published as `workspace_file`): reads
 * one file — as text with a MIME type guessed from its extension when it is
 * valid UTF-8 without NUL bytes and its type is not a binary one, else as
 * binary (`blob`; see {@link contentsOf}) — and lists the workspace's files
 * in `resources/list`, {@link filesPerPage} a page, in walk order, without
 * secrets, `.gitignore`d files, symlinks and `.git/`. A
 * directory or a missing file answers "resource not found"; a file over the
 * workspace's read limit (1 MiB) fails with a message pointing at
 * `workspace_read`; a rejected path fails with the workspace's reason.
 *
 * **Example**
 *
 * ```ts
 * import { fileResource } from "./capabilities/workspace/fileResource.ts"
 *
 * fileResource.resource.name // => "file"
 * ```
 *
 * @category resources
 * @since 0.1.0
 */
export const fileResource = Resource.template("file", {
  uriTemplate: "workspace://{+path}",
  title: "Workspace file",
  description:
    "A file of the workspace, by its path relative to the workspace root: workspace://src/main.ts. Text files " +
    "come as text (MIME type from the extension), other files as binary. Files up to 1 MiB; read larger ones in " +
    "slices with the workspace_read tool. Secrets (.env, keys) and paths outside the root are refused.",
  params: Schema.Struct({
    path: Schema.String.annotate({ description: "The file's path relative to the workspace root." })
  })
}).pipe(
  Resource.handle(({ path }) =>
    Effect.gen(function* () {
      const workspace = yield* Workspace
      const info = yield* workspace.stat(path)
      if (info.type === "directory") {
        return yield* new Resource.NotFound({
          message: `${info.path === "" ? "The root" : info.path} is a directory, not a file; resources/list lists the files.`
        })
      }
      const read = yield* workspace.readBytes(path)
      if (read.truncated) {
        return yield* new InvalidArgument({
          path: read.path,
          message: `${read.path} is ${read.size} bytes, more than one resource read returns (${read.bytes.length}).`,
          suggestion: `Call the workspace_read tool with path ${JSON.stringify(read.path)} and offsets to read it in slices.`
        })
      }
      return contentsOf(read.path, read.bytes)
    })
  ),
  Resource.list((cursor) =>
    Effect.gen(function* () {
      const workspace = yield* Workspace
      const page = yield* workspace.listFiles("", { cursor, limit: filesPerPage })
      return {
        resources: page.files.map((file) => {
          const mimeType = mimeTypeOf(file.path)
          return {
            uri: uriOf(file.path),
            name: file.path,
            ...(mimeType !== undefined ? { mimeType } : {}),
            size: file.size
          }
        }),
        ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {})
      }
    })
  )
)
