/**
 * The skills capability through the real server (`McpServer.make`, 2026-07-28
 * stateless requests) over real Node workspaces on temporary directories:
 * the extension's advertisement, `skills/list` (entries, digests and sizes
 * recomputed here from the bytes on disk, pagination), `skills/get`,
 * `resources/directory/read`, the `skill://` resources in `resources/list` and
 * `resources/read`, configured directories inside and outside the root, and
 * every kind of bad input — a folder without SKILL.md, broken frontmatter, a
 * symlink out of the root, a 20 MiB skill, 513 files — each answered with a
 * clear −32602 and a warning in the log while the other skills stay served.
 * A recording workspace shows what one skill's requests read.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { SkillsCapability, SkillSources } from "../capabilities/skills/index.ts"
import { defaultSkillsSettings, SkillsSettings, type SkillsSettingsShape } from "../capabilities/skills/settings.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as Kernel from "../src/Kernel.ts"
import * as McpServer from "../src/McpServer.ts"
import { Workspace } from "../src/Workspace.ts"

const fixtures = join(import.meta.dirname, "fixtures", "skills")

type Entry = string | Uint8Array | { readonly symlink: string } | { readonly copy: string }

/** A temporary directory (its real path) holding `tree`; removed when the test's scope closes. */
const makeDirectory = (tree: Record<string, Entry>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), "skills-test-")))
      writeTree(root, tree)
      return root
    }),
    (root) => Effect.sync(() => fs.rmSync(root, { recursive: true, force: true }))
  )

const writeTree = (root: string, tree: Record<string, Entry>) => {
  for (const [path, entry] of Object.entries(tree)) {
    const target = join(root, path)
    fs.mkdirSync(dirname(target), { recursive: true })
    if (typeof entry === "string" || entry instanceof Uint8Array) fs.writeFileSync(target, entry)
    else if ("symlink" in entry) fs.symlinkSync(entry.symlink, target)
    else fs.cpSync(join(fixtures, entry.copy), target, { recursive: true })
  }
}

const skillMd = (name: string, description = `The ${name} skill`, extra = "") =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n`

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {}
}

interface Logged {
  readonly level: string
  readonly text: string
}

type WorkspaceService = Workspace["Service"]

/**
 * A server with the skills capability over `root` (the Node workspace, passed through `wrap`; directories outside
 * the root opened with NodeWorkspace.make), and the warnings it logs.
 */
const serve = (
  root: string,
  settings: Partial<SkillsSettingsShape> = {},
  wrap: (workspace: WorkspaceService) => WorkspaceService = (workspace) => workspace
) =>
  Effect.gen(function* () {
    const logs: Array<Logged> = []
    const collector = Logger.make((options) => {
      const parts = Array.isArray(options.message) ? options.message : [options.message]
      logs.push({
        level: options.logLevel,
        text: parts.map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join(" ")
      })
    })
    const capability = SkillsCapability.pipe(
      Layer.provide(SkillSources.layer({ open: (directory) => NodeWorkspace.make({ root: directory }) })),
      Layer.provide(Layer.effect(Workspace, Effect.map(NodeWorkspace.make({ root }), wrap))),
      Layer.provide(Layer.succeed(SkillsSettings, { ...defaultSkillsSettings, ...settings }))
    )
    const withLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.provideService(effect, Logger.CurrentLoggers, new Set([collector]))
    const context = yield* withLogs(Layer.build(capability.pipe(Layer.provideMerge(Kernel.layer()))))
    const server = yield* withLogs(McpServer.make().pipe(Effect.provide(context)))
    let id = 0
    const call = (method: string, params: Record<string, unknown> = {}) =>
      Effect.map(
        server.request({ id: ++id, method, params: { ...params, _meta: meta } }, { send: () => Effect.void }),
        (answer) => JSON.parse(answer.line) as { result?: any; error?: { code: number; message: string; data?: any } }
      )
    /** The result of a request that must succeed. */
    const result = (method: string, params: Record<string, unknown> = {}) =>
      Effect.map(call(method, params), (response) => {
        assert.isUndefined(response.error, `${method} failed: ${JSON.stringify(response.error)}`)
        return response.result
      })
    /** The error of a request that must fail. */
    const failure = (method: string, params: Record<string, unknown> = {}) =>
      Effect.map(call(method, params), (response) => {
        assert.isDefined(response.error, `${method} succeeded: ${JSON.stringify(response.result)}`)
        return response.error!
      })
    const warnings = () => logs.filter((log) => log.level === "Warn").map((log) => log.text)
    return { call, result, failure, warnings }
  })

/** The workspace with each call of `stat`, `list`, `listFiles` and `readBytes` recorded in `calls` as `method path`. */
const recording =
  (calls: Array<string>) =>
  (workspace: WorkspaceService): WorkspaceService => {
    const record =
      <Args extends ReadonlyArray<unknown>, A, E>(
        method: string,
        call: (path: string, ...args: Args) => Effect.Effect<A, E>
      ) =>
      (path: string, ...args: Args) =>
        Effect.andThen(
          Effect.sync(() => calls.push(`${method} ${path}`)),
          call(path, ...args)
        )
    return {
      ...workspace,
      stat: record("stat", workspace.stat),
      list: record("list", workspace.list),
      listFiles: record("listFiles", workspace.listFiles),
      readBytes: record("readBytes", workspace.readBytes)
    }
  }

const sha256 = (bytes: Uint8Array) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`

/** The entry skills/list must give for the skill in `directory`, computed here from the files on disk. */
const expectedResources = (name: string, directory: string) => {
  const files: Array<string> = []
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(join(directory, relative), { withFileTypes: true })) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) files.push(path)
    }
  }
  walk("")
  files.sort((a, b) => (a === "SKILL.md" ? -1 : b === "SKILL.md" ? 1 : a < b ? -1 : a > b ? 1 : 0))
  return files.map((path) => {
    const bytes = fs.readFileSync(join(directory, path))
    return { uri: `skill://${name}/${path}`, digest: sha256(bytes), size: bytes.length }
  })
}

/** Every page of skills/list, following nextCursor. */
const allPages = (result: (method: string, params?: Record<string, unknown>) => Effect.Effect<any>) =>
  Effect.gen(function* () {
    const pages: Array<any> = []
    let cursor: string | undefined
    do {
      const page = yield* result("skills/list", cursor === undefined ? {} : { cursor })
      pages.push(page)
      cursor = page.nextCursor
      assert.isBelow(pages.length, 50, "skills/list does not end")
    } while (cursor !== undefined)
    return pages
  })

describe("skills capability", () => {
  it.effect("advertises the extension with directoryRead, and the resources capability", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({ ".agents/skills/pdf-processing": { copy: "pdf-processing" } })
      const { result } = yield* serve(root)
      const discovered = yield* result("server/discover")
      assert.deepStrictEqual(discovered.capabilities.extensions["io.modelcontextprotocol/skills"], {
        directoryRead: true
      })
      assert.isObject(discovered.capabilities.resources)
    }).pipe(Effect.scoped)
  )

  it.effect("skills/list: every skill with its verbatim frontmatter, and each file's digest and size", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({
        ".agents/skills/pdf-processing": { copy: "pdf-processing" },
        ".claude/skills/release-notes": { copy: "release-notes" },
        "skills/plain/SKILL.md": skillMd("plain")
      })
      const { result, warnings } = yield* serve(root)
      const page = yield* result("skills/list")
      assert.strictEqual(page.resultType, "complete")
      assert.strictEqual(page.ttlMs, 0)
      assert.strictEqual(page.cacheScope, "private")
      assert.isUndefined(page.nextCursor)
      assert.deepStrictEqual(
        page.skills.map((skill: any) => skill.uri),
        ["skill://pdf-processing/SKILL.md", "skill://plain/SKILL.md", "skill://release-notes/SKILL.md"]
      )
      const [pdf, plain, notes] = page.skills
      assert.deepStrictEqual(pdf, {
        uri: "skill://pdf-processing/SKILL.md",
        frontmatter: {
          name: "pdf-processing",
          description: "Extract, fill, and assemble PDF documents",
          license: "Apache-2.0"
        },
        resources: expectedResources("pdf-processing", join(root, ".agents/skills/pdf-processing"))
      })
      assert.deepStrictEqual(
        pdf.resources.map((resource: any) => resource.uri),
        [
          "skill://pdf-processing/SKILL.md",
          "skill://pdf-processing/references/FORMS.md",
          "skill://pdf-processing/scripts/extract.py"
        ]
      )
      assert.deepStrictEqual(plain.resources, expectedResources("plain", join(root, "skills/plain")))
      // YAML 1.2 core schema, as the yaml package parses it: 1.0 is a number, yes a string.
      assert.deepStrictEqual(notes.frontmatter, {
        name: "release-notes",
        description: "Write release notes: group the merged changes by kind, newest first",
        version: 1,
        "allowed-tools": ["Read", "Grep"],
        metadata: { author: "docs-team", reviewed: "yes" }
      })
      assert.deepStrictEqual(warnings(), [])
    }).pipe(Effect.scoped)
  )

  it.effect("skills/get: the list's entry for a served skill; −32602 for an unknown one or a URI of another kind", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({ ".agents/skills/pdf-processing": { copy: "pdf-processing" } })
      const { failure, result } = yield* serve(root)
      const listed = (yield* result("skills/list")).skills[0]
      const got = yield* result("skills/get", { uri: "skill://pdf-processing/SKILL.md" })
      assert.deepStrictEqual(got.skill, listed)
      assert.strictEqual(got.ttlMs, 0)
      assert.strictEqual(got.cacheScope, "private")
      assert.isUndefined(got.nextCursor)
      const unknown = yield* failure("skills/get", { uri: "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md" })
      assert.strictEqual(unknown.code, -32602)
      assert.include(unknown.message, "Unknown skill: skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md")
      assert.deepStrictEqual(unknown.data, { uri: "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md" })
      for (const uri of ["skill://pdf-processing/references/FORMS.md", "file:///tmp/SKILL.md", "skill://"]) {
        const wrong = yield* failure("skills/get", { uri })
        assert.strictEqual(wrong.code, -32602)
        assert.include(wrong.message, "skill://<name>/SKILL.md")
      }
      assert.strictEqual((yield* failure("skills/get", {})).code, -32602)
    }).pipe(Effect.scoped)
  )

  it.effect("resources/list lists every file; SKILL.md with the skill's name, description and text/markdown", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({
        ".agents/skills/pdf-processing": { copy: "pdf-processing" },
        ".agents/skills/release-notes": { copy: "release-notes" }
      })
      const { result } = yield* serve(root)
      const listed = (yield* result("resources/list")).resources
      assert.deepStrictEqual(listed, [
        {
          uri: "skill://pdf-processing/SKILL.md",
          name: "pdf-processing",
          description: "Extract, fill, and assemble PDF documents",
          mimeType: "text/markdown",
          size: fs.statSync(join(root, ".agents/skills/pdf-processing/SKILL.md")).size
        },
        {
          uri: "skill://pdf-processing/references/FORMS.md",
          name: "pdf-processing/references/FORMS.md",
          mimeType: "text/markdown",
          size: fs.statSync(join(root, ".agents/skills/pdf-processing/references/FORMS.md")).size
        },
        {
          uri: "skill://pdf-processing/scripts/extract.py",
          name: "pdf-processing/scripts/extract.py",
          mimeType: "text/x-python",
          size: fs.statSync(join(root, ".agents/skills/pdf-processing/scripts/extract.py")).size
        },
        {
          uri: "skill://release-notes/SKILL.md",
          name: "release-notes",
          description: "Write release notes: group the merged changes by kind, newest first",
          mimeType: "text/markdown",
          size: fs.statSync(join(root, ".agents/skills/release-notes/SKILL.md")).size
        }
      ])
    }).pipe(Effect.scoped)
  )

  it.effect("resources/list pages through the files of every skill, 100 a page, each once", () =>
    Effect.gen(function* () {
      const tree: Record<string, Entry> = {}
      for (const name of ["alpha", "beta", "gamma"]) {
        tree[`.agents/skills/${name}/SKILL.md`] = skillMd(name)
        for (let i = 0; i < 70; i++) tree[`.agents/skills/${name}/notes/${String(i).padStart(2, "0")}.md`] = `${i}\n`
      }
      const root = yield* makeDirectory(tree)
      const { result } = yield* serve(root)
      const uris: Array<string> = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = yield* result("resources/list", cursor === undefined ? {} : { cursor })
        uris.push(...page.resources.map((resource: any) => resource.uri))
        cursor = page.nextCursor
        pages++
      } while (cursor !== undefined && pages < 10)
      assert.strictEqual(pages, 3)
      assert.strictEqual(uris.length, 3 * 71)
      assert.strictEqual(new Set(uris).size, uris.length)
      assert.strictEqual(uris[0], "skill://alpha/SKILL.md")
      assert.include(uris, "skill://gamma/notes/69.md")
    }).pipe(Effect.scoped)
  )

  it.effect(
    "resources/read: SKILL.md as text/markdown, other files as text or blob, −32602 for what is not served",
    () =>
      Effect.gen(function* () {
        const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 255, 254])
        const root = yield* makeDirectory({
          ".agents/skills/pdf-processing": { copy: "pdf-processing" },
          ".agents/skills/pdf-processing/assets/logo.png": png,
          ".agents/skills/pdf-processing/assets/read me.txt": "spaces in the name\n"
        })
        const { failure, result } = yield* serve(root)
        const skill = yield* result("resources/read", { uri: "skill://pdf-processing/SKILL.md" })
        assert.strictEqual(skill.ttlMs, 0)
        assert.deepStrictEqual(skill.contents, [
          {
            uri: "skill://pdf-processing/SKILL.md",
            mimeType: "text/markdown",
            text: fs.readFileSync(join(fixtures, "pdf-processing/SKILL.md"), "utf8")
          }
        ])
        const forms = yield* result("resources/read", { uri: "skill://pdf-processing/references/FORMS.md" })
        assert.strictEqual(
          forms.contents[0].text,
          fs.readFileSync(join(fixtures, "pdf-processing/references/FORMS.md"), "utf8")
        )
        const logo = yield* result("resources/read", { uri: "skill://pdf-processing/assets/logo.png" })
        assert.deepStrictEqual(logo.contents[0], {
          uri: "skill://pdf-processing/assets/logo.png",
          mimeType: "image/png",
          blob: Buffer.from(png).toString("base64")
        })
        const spaced = yield* result("resources/read", { uri: "skill://pdf-processing/assets/read%20me.txt" })
        assert.strictEqual(spaced.contents[0].text, "spaces in the name\n")
        const missing = yield* failure("resources/read", { uri: "skill://pdf-processing/references/NOPE.md" })
        assert.strictEqual(missing.code, -32602)
        assert.include(missing.message, "has no file references/NOPE.md")
        assert.deepStrictEqual(missing.data, { uri: "skill://pdf-processing/references/NOPE.md" })
        const directory = yield* failure("resources/read", { uri: "skill://pdf-processing/references" })
        assert.strictEqual(directory.code, -32602)
        assert.include(directory.message, "resources/directory/read")
        const unknown = yield* failure("resources/read", { uri: "skill://nobody/SKILL.md" })
        assert.strictEqual(unknown.code, -32602)
        assert.include(unknown.message, "No skill is named nobody")
      }).pipe(Effect.scoped)
  )

  it.effect("resources/directory/read: direct children, subdirectories as inode/directory, −32602 for a file", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({ ".agents/skills/pdf-processing": { copy: "pdf-processing" } })
      const { failure, result } = yield* serve(root)
      const top = yield* result("resources/directory/read", { uri: "skill://pdf-processing" })
      assert.strictEqual(top.resultType, "complete")
      assert.isUndefined(top.nextCursor)
      assert.deepStrictEqual(top.resources, [
        {
          uri: "skill://pdf-processing/SKILL.md",
          name: "pdf-processing",
          description: "Extract, fill, and assemble PDF documents",
          mimeType: "text/markdown",
          size: fs.statSync(join(fixtures, "pdf-processing/SKILL.md")).size
        },
        { uri: "skill://pdf-processing/references", name: "pdf-processing/references", mimeType: "inode/directory" },
        { uri: "skill://pdf-processing/scripts", name: "pdf-processing/scripts", mimeType: "inode/directory" }
      ])
      const references = yield* result("resources/directory/read", { uri: "skill://pdf-processing/references" })
      assert.deepStrictEqual(
        references.resources.map((resource: any) => [resource.uri, resource.mimeType]),
        [["skill://pdf-processing/references/FORMS.md", "text/markdown"]]
      )
      const trailing = yield* result("resources/directory/read", { uri: "skill://pdf-processing/" })
      assert.deepStrictEqual(trailing.resources, top.resources)
      const file = yield* failure("resources/directory/read", { uri: "skill://pdf-processing/SKILL.md" })
      assert.strictEqual(file.code, -32602)
      assert.include(file.message, "is a file, not a directory")
      const absent = yield* failure("resources/directory/read", { uri: "skill://pdf-processing/assets" })
      assert.strictEqual(absent.code, -32602)
      assert.include(absent.message, "has no directory assets")
      assert.strictEqual((yield* failure("resources/directory/read", { uri: "skill://nobody" })).code, -32602)
      assert.strictEqual((yield* failure("resources/directory/read", { uri: "workspace://x" })).code, -32602)
    }).pipe(Effect.scoped)
  )

  it.effect("resources/directory/read pages by pageSize; a foreign cursor is −32602", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({ ".agents/skills/pdf-processing": { copy: "pdf-processing" } })
      const { failure, result } = yield* serve(root, { pageSize: 2 })
      const first = yield* result("resources/directory/read", { uri: "skill://pdf-processing" })
      assert.strictEqual(first.resources.length, 2)
      assert.isString(first.nextCursor)
      const second = yield* result("resources/directory/read", {
        uri: "skill://pdf-processing",
        cursor: first.nextCursor
      })
      assert.deepStrictEqual(
        second.resources.map((resource: any) => resource.uri),
        ["skill://pdf-processing/scripts"]
      )
      assert.isUndefined(second.nextCursor)
      const bad = yield* failure("resources/directory/read", { uri: "skill://pdf-processing", cursor: "nope" })
      assert.strictEqual(bad.code, -32602)
      assert.include(bad.message, "cursor")
    }).pipe(Effect.scoped)
  )

  it.effect("skills/list pages: pageSize entries each, every skill once, a foreign cursor is −32602", () =>
    Effect.gen(function* () {
      const names = ["a1", "b2", "c3", "d4", "e5"]
      const tree: Record<string, Entry> = {}
      for (const name of names) tree[`.agents/skills/${name}/SKILL.md`] = skillMd(name)
      tree[".agents/skills/c3/more/x.txt"] = "x"
      const root = yield* makeDirectory(tree)
      const { failure, result } = yield* serve(root, { pageSize: 2 })
      const pages = yield* allPages(result)
      assert.deepStrictEqual(
        pages.map((page) => page.skills.map((skill: any) => skill.frontmatter.name)),
        [["a1", "b2"], ["c3", "d4"], ["e5"]]
      )
      for (const page of pages) assert.strictEqual(page.cacheScope, "private")
      // an entry is whole on its page
      assert.strictEqual(pages[1].skills[0].resources.length, 2)
      const bad = yield* failure("skills/list", { cursor: "not-a-cursor" })
      assert.strictEqual(bad.code, -32602)
    }).pipe(Effect.scoped)
  )

  it.effect("a folder without SKILL.md: left out, a warning, −32602 from skills/get saying so", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({
        ".agents/skills/pdf-processing": { copy: "pdf-processing" },
        ".agents/skills/empty-notes/notes.md": "no SKILL.md here\n"
      })
      const { failure, result, warnings } = yield* serve(root)
      const page = yield* result("skills/list")
      assert.deepStrictEqual(
        page.skills.map((skill: any) => skill.uri),
        ["skill://pdf-processing/SKILL.md"]
      )
      const error = yield* failure("skills/get", { uri: "skill://empty-notes/SKILL.md" })
      assert.strictEqual(error.code, -32602)
      assert.include(error.message, ".agents/skills/empty-notes has no SKILL.md")
      assert.strictEqual(error.data.reason, "no_skill_md")
      // logged once, however often it is asked about
      yield* result("skills/list")
      const logged = warnings().filter((text) => text.includes("empty-notes"))
      assert.strictEqual(logged.length, 1)
      assert.include(logged[0], "is not served")
      assert.include(logged[0], "has no SKILL.md")
      assert.strictEqual((yield* failure("resources/read", { uri: "skill://empty-notes/notes.md" })).code, -32602)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "broken frontmatter: left out with the reason; skills/get names the problem and the YAML's line and column",
    () =>
      Effect.gen(function* () {
        const root = yield* makeDirectory({
          ".agents/skills/pdf-processing": { copy: "pdf-processing" },
          ".agents/skills/broken-yaml/SKILL.md":
            "---\nname: broken-yaml\ndescription: Notes: with a colon\n---\n# Broken\n",
          ".agents/skills/no-frontmatter/SKILL.md": "# Just Markdown\n",
          ".agents/skills/unclosed/SKILL.md": "---\nname: unclosed\ndescription: never closed\n",
          ".agents/skills/a-list/SKILL.md": "---\n- name\n- description\n---\n",
          ".agents/skills/no-description/SKILL.md": "---\nname: no-description\n---\n",
          ".agents/skills/numeric-description/SKILL.md": "---\nname: numeric-description\ndescription: 42\n---\n",
          ".agents/skills/Bad--Name/SKILL.md": skillMd("Bad--Name"),
          ".agents/skills/mismatch/SKILL.md": skillMd("other-name"),
          ".agents/skills/reserved/SKILL.md": skillMd(
            "reserved",
            "Uses a reserved key",
            "metadata:\n  io.modelcontextprotocol/trust: high\n"
          )
        })
        const { failure, result, warnings } = yield* serve(root)
        const page = yield* result("skills/list")
        assert.deepStrictEqual(
          page.skills.map((skill: any) => skill.uri),
          ["skill://pdf-processing/SKILL.md"]
        )
        const cases: ReadonlyArray<readonly [string, string, string]> = [
          ["broken-yaml", "invalid_yaml", "not valid YAML (line 3, column"],
          ["no-frontmatter", "no_frontmatter", "does not begin with YAML frontmatter"],
          ["unclosed", "no_frontmatter", "never closes it"],
          ["a-list", "frontmatter_not_mapping", "is a list, not a mapping"],
          ["no-description", "missing_field", "has no description"],
          ["numeric-description", "missing_field", "The description in the frontmatter of SKILL.md is number"],
          ["Bad--Name", "invalid_name", "breaks the Agent Skills naming rule"],
          ["mismatch", "name_mismatch", 'differs from its directory\'s name "mismatch"'],
          ["reserved", "reserved_metadata", "io.modelcontextprotocol/trust"]
        ]
        for (const [name, reason, text] of cases) {
          const uri = `skill://${name}/SKILL.md`
          const error = yield* failure("skills/get", { uri })
          assert.strictEqual(error.code, -32602, name)
          assert.strictEqual(error.data.reason, reason, name)
          assert.strictEqual(error.data.uri, uri)
          assert.include(error.message, text, name)
          assert.include(error.message, `The skill ${uri} cannot be served`)
          assert.isTrue(
            warnings().some((warning) => warning.includes(`.agents/skills/${name} is not served`)),
            `no warning for ${name}`
          )
        }
        const yaml = yield* failure("skills/get", { uri: "skill://broken-yaml/SKILL.md" })
        assert.strictEqual(yaml.data.line, 3)
        assert.isNumber(yaml.data.column)
        assert.strictEqual(yaml.data.path, "SKILL.md")
        // the server keeps serving the good skill
        assert.strictEqual(
          (yield* result("skills/get", { uri: "skill://pdf-processing/SKILL.md" })).skill.uri,
          "skill://pdf-processing/SKILL.md"
        )
      }).pipe(Effect.scoped)
  )

  it.effect("a symlink out of the root: the skill or the file is left out with a warning; one inside is followed", () =>
    Effect.gen(function* () {
      const outside = yield* makeDirectory({
        "stolen/SKILL.md": skillMd("stolen"),
        "secret.txt": "the password\n"
      })
      const root = yield* makeDirectory({
        ".agents/skills/pdf-processing": { copy: "pdf-processing" },
        ".agents/skills/stolen": { symlink: join(outside, "stolen") },
        ".agents/skills/pdf-processing/references/secret.txt": { symlink: join(outside, "secret.txt") },
        // a link that stays inside the root is followed
        "shared/linked/SKILL.md": skillMd("linked"),
        "shared/linked/notes/a.md": "a\n",
        ".claude/skills/linked": { symlink: "../../shared/linked" }
      })
      const { failure, result, warnings } = yield* serve(root)
      const page = yield* result("skills/list")
      assert.deepStrictEqual(
        page.skills.map((skill: any) => skill.uri),
        ["skill://linked/SKILL.md", "skill://pdf-processing/SKILL.md"]
      )
      assert.deepStrictEqual(page.skills[0].resources, expectedResources("linked", join(root, "shared/linked")))
      const linked = yield* result("resources/read", { uri: "skill://linked/notes/a.md" })
      assert.strictEqual(linked.contents[0].text, "a\n")
      assert.notInclude(
        page.skills[1].resources.map((resource: any) => resource.uri),
        "skill://pdf-processing/references/secret.txt"
      )
      const stolen = yield* failure("skills/get", { uri: "skill://stolen/SKILL.md" })
      assert.strictEqual(stolen.code, -32602)
      assert.strictEqual(stolen.data.reason, "refused")
      assert.include(stolen.message, "symlink that leads outside the workspace root")
      const secret = yield* failure("resources/read", { uri: "skill://pdf-processing/references/secret.txt" })
      assert.strictEqual(secret.code, -32602)
      assert.isTrue(warnings().some((text) => text.includes(".agents/skills/stolen is not served")))
      assert.isTrue(
        warnings().some(
          (text) =>
            text.includes(".agents/skills/pdf-processing/references/secret.txt is left out") &&
            text.includes("outside the workspace root")
        ),
        warnings().join("\n")
      )
    }).pipe(Effect.scoped)
  )

  it.effect("a 20 MiB skill: left out; skills/get says its size and the 16 MiB limit", () =>
    Effect.gen(function* () {
      const tenMiB = new Uint8Array(10 * 1024 * 1024).fill(97)
      const root = yield* makeDirectory({
        ".agents/skills/pdf-processing": { copy: "pdf-processing" },
        ".agents/skills/huge/SKILL.md": skillMd("huge"),
        ".agents/skills/huge/data/one.bin": tenMiB,
        ".agents/skills/huge/data/two.bin": tenMiB
      })
      const { failure, result, warnings } = yield* serve(root)
      const page = yield* result("skills/list")
      assert.deepStrictEqual(
        page.skills.map((skill: any) => skill.uri),
        ["skill://pdf-processing/SKILL.md"]
      )
      const total = 20 * 1024 * 1024 + fs.statSync(join(root, ".agents/skills/huge/SKILL.md")).size
      const error = yield* failure("skills/get", { uri: "skill://huge/SKILL.md" })
      assert.strictEqual(error.code, -32602)
      assert.strictEqual(error.data.reason, "too_large")
      assert.include(error.message, `is ${total} bytes`)
      assert.include(error.message, "over the limit of 16777216 bytes (16.0 MiB) per skill")
      assert.isTrue(warnings().some((text) => text.includes(".agents/skills/huge is not served")))
    }).pipe(Effect.scoped)
  )

  it.effect("513 files: left out; 512 files: served", () =>
    Effect.gen(function* () {
      const tree: Record<string, Entry> = {
        ".agents/skills/crowded/SKILL.md": skillMd("crowded"),
        ".agents/skills/full/SKILL.md": skillMd("full")
      }
      for (let i = 0; i < 512; i++) tree[`.agents/skills/crowded/refs/${i}.md`] = `${i}\n`
      for (let i = 0; i < 511; i++) tree[`.agents/skills/full/refs/${i}.md`] = `${i}\n`
      const root = yield* makeDirectory(tree)
      const { failure, result, warnings } = yield* serve(root)
      const page = yield* result("skills/list")
      assert.deepStrictEqual(
        page.skills.map((skill: any) => skill.uri),
        ["skill://full/SKILL.md"]
      )
      assert.strictEqual(page.skills[0].resources.length, 512)
      const error = yield* failure("skills/get", { uri: "skill://crowded/SKILL.md" })
      assert.strictEqual(error.code, -32602)
      assert.strictEqual(error.data.reason, "too_many_files")
      assert.include(error.message, "has more than 512 files")
      assert.isTrue(warnings().some((text) => text.includes(".agents/skills/crowded is not served")))
    }).pipe(Effect.scoped)
  )

  it.effect("the same name twice: the first location wins and the other is reported; a linked location is one", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({
        ".agents/skills/pdf-processing": { copy: "pdf-processing" },
        ".claude/skills/pdf-processing/SKILL.md": skillMd("pdf-processing", "An older copy"),
        ".agents/skills/release-notes": { copy: "release-notes" },
        // a location that is a link to another: the same skills, not duplicates
        skills: { symlink: ".agents/skills" }
      })
      const { result, warnings } = yield* serve(root)
      const page = yield* result("skills/list")
      assert.deepStrictEqual(
        page.skills.map((skill: any) => [skill.uri, skill.frontmatter.description]),
        [
          ["skill://pdf-processing/SKILL.md", "Extract, fill, and assemble PDF documents"],
          ["skill://release-notes/SKILL.md", "Write release notes: group the merged changes by kind, newest first"]
        ]
      )
      assert.deepStrictEqual(
        warnings().filter((text) => text.includes("has the same name")),
        [
          "skills: .claude/skills/pdf-processing is not served: .agents/skills/pdf-processing has the same name and " +
            'comes first {"skill":"pdf-processing","source":".claude/skills","shadowedBy":".agents/skills"}'
        ]
      )
    }).pipe(Effect.scoped)
  )

  it.effect("configured directories: under the root, outside it (a workspace of its own), and a missing one", () =>
    Effect.gen(function* () {
      const team = yield* makeDirectory({ "release-notes": { copy: "release-notes" } })
      const root = yield* makeDirectory({
        ".agents/skills/pdf-processing": { copy: "pdf-processing" },
        "docs/skills/plain/SKILL.md": skillMd("plain")
      })
      const { result, warnings } = yield* serve(root, {
        directories: ["docs/skills", team, join(root, "..", "skills-test-does-not-exist")]
      })
      const page = yield* result("skills/list")
      assert.deepStrictEqual(
        page.skills.map((skill: any) => skill.uri),
        ["skill://pdf-processing/SKILL.md", "skill://plain/SKILL.md", "skill://release-notes/SKILL.md"]
      )
      assert.deepStrictEqual(page.skills[2].resources, expectedResources("release-notes", join(team, "release-notes")))
      const read = yield* result("resources/read", { uri: "skill://release-notes/SKILL.md" })
      assert.strictEqual(read.contents[0].text, fs.readFileSync(join(team, "release-notes/SKILL.md"), "utf8"))
      assert.isTrue(
        warnings().some((text) => text.includes("skills-test-does-not-exist cannot be read; it is left out")),
        warnings().join("\n")
      )
    }).pipe(Effect.scoped)
  )

  it.effect("an edited file gets a new digest, even at the same size", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({
        ".agents/skills/notes/SKILL.md": skillMd("notes"),
        ".agents/skills/notes/a.txt": "aaaa"
      })
      const { result } = yield* serve(root)
      const before = (yield* result("skills/get", { uri: "skill://notes/SKILL.md" })).skill.resources[1]
      assert.strictEqual(before.digest, sha256(Buffer.from("aaaa")))
      const file = join(root, ".agents/skills/notes/a.txt")
      fs.writeFileSync(file, "bbbb")
      const stat = fs.statSync(file)
      fs.utimesSync(file, stat.atime, new Date(stat.mtimeMs + 5000))
      const after = (yield* result("skills/get", { uri: "skill://notes/SKILL.md" })).skill.resources[1]
      assert.deepStrictEqual(after, { uri: "skill://notes/a.txt", digest: sha256(Buffer.from("bbbb")), size: 4 })
    }).pipe(Effect.scoped)
  )

  it.effect("more than 512 files walked before SKILL.md (a Data/ directory): too_many_files, not no_skill_md", () =>
    Effect.gen(function* () {
      const tree: Record<string, Entry> = {
        ".agents/skills/bulky/SKILL.md": skillMd("bulky"),
        ".agents/skills/roomy/SKILL.md": skillMd("roomy")
      }
      // "Data" sorts before "SKILL.md", so the walk meets these files first.
      for (let i = 0; i < 513; i++) tree[`.agents/skills/bulky/Data/${i}.csv`] = `${i}\n`
      for (let i = 0; i < 511; i++) tree[`.agents/skills/roomy/Data/${i}.csv`] = `${i}\n`
      const root = yield* makeDirectory(tree)
      const { failure, result, warnings } = yield* serve(root)
      const page = yield* result("skills/list")
      assert.deepStrictEqual(
        page.skills.map((skill: any) => skill.uri),
        ["skill://roomy/SKILL.md"]
      )
      assert.strictEqual(page.skills[0].resources.length, 512)
      assert.strictEqual(page.skills[0].resources[0].uri, "skill://roomy/SKILL.md")
      const error = yield* failure("skills/get", { uri: "skill://bulky/SKILL.md" })
      assert.strictEqual(error.code, -32602)
      assert.strictEqual(error.data.reason, "too_many_files")
      assert.include(error.message, ".agents/skills/bulky has more than 512 files")
      assert.notInclude(error.message, "SKILL.md of")
      const read = yield* failure("resources/read", { uri: "skill://bulky/SKILL.md" })
      assert.include(read.message, "has more than 512 files")
      const logged = warnings().filter((text) => text.includes("bulky"))
      assert.strictEqual(logged.length, 1, logged.join("\n"))
      assert.include(logged[0], "has more than 512 files")
    }).pipe(Effect.scoped)
  )

  it.effect("resources/read: a file of a binary type is a blob even without NUL bytes and as valid UTF-8", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({
        ".agents/skills/assets/SKILL.md": skillMd("assets"),
        // NUL-free, valid UTF-8 bytes: only the MIME type says they are not text
        ".agents/skills/assets/logo.png": "PNG but every byte is ASCII\n",
        ".agents/skills/assets/form.pdf": "%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
        ".agents/skills/assets/icon.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>\n',
        ".agents/skills/assets/Makefile": "all:\n"
      })
      const { result } = yield* serve(root)
      const read = (path: string) =>
        Effect.map(result("resources/read", { uri: `skill://assets/${path}` }), (answer) => answer.contents)
      assert.deepStrictEqual(yield* read("logo.png"), [
        {
          uri: "skill://assets/logo.png",
          mimeType: "image/png",
          blob: Buffer.from("PNG but every byte is ASCII\n").toString("base64")
        }
      ])
      const pdf = yield* read("form.pdf")
      assert.strictEqual(pdf[0].mimeType, "application/pdf")
      assert.strictEqual(
        Buffer.from(pdf[0].blob, "base64").toString(),
        "%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"
      )
      assert.isUndefined(pdf[0].text)
      // SVG is text, and so is a file of no known type
      assert.deepStrictEqual(yield* read("icon.svg"), [
        {
          uri: "skill://assets/icon.svg",
          mimeType: "image/svg+xml",
          text: '<svg xmlns="http://www.w3.org/2000/svg"/>\n'
        }
      ])
      assert.deepStrictEqual(yield* read("Makefile"), [
        { uri: "skill://assets/Makefile", mimeType: "text/plain", text: "all:\n" }
      ])
    }).pipe(Effect.scoped)
  )

  it.effect("one skill's requests look only at that skill, and read its SKILL.md once", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({
        ".agents/skills/notes/SKILL.md": skillMd("notes"),
        ".agents/skills/notes/refs/a.md": "a\n",
        ".agents/skills/other/SKILL.md": skillMd("other"),
        ".claude/skills/more/SKILL.md": skillMd("more")
      })
      const calls: Array<string> = []
      const { result } = yield* serve(root, {}, recording(calls))
      const skillMdPath = ".agents/skills/notes/SKILL.md"
      const count = (call: string) => calls.filter((each) => each === call).length

      const first = yield* result("resources/read", { uri: "skill://notes/SKILL.md" })
      assert.strictEqual(first.contents[0].text, skillMd("notes"))
      assert.strictEqual(count(`readBytes ${skillMdPath}`), 1, calls.join("\n"))
      // no source is listed to find the skill; the skill's directories are looked at for symlinks the first time
      for (const base of [".agents/skills", ".claude/skills", "skills"]) assert.strictEqual(count(`list ${base}`), 0)
      assert.isFalse(
        calls.some((call) => call.includes("other") || call.includes("more")),
        calls.join("\n")
      )
      assert.isAbove(count("list .agents/skills/notes"), 0)

      calls.length = 0
      const again = yield* result("resources/read", { uri: "skill://notes/SKILL.md" })
      assert.deepStrictEqual(again.contents, first.contents)
      assert.deepStrictEqual(
        calls,
        ["stat .agents/skills/notes", "listFiles .agents/skills/notes", `readBytes ${skillMdPath}`],
        "the same files: the directories are not listed again"
      )

      calls.length = 0
      yield* result("skills/get", { uri: "skill://notes/SKILL.md" })
      yield* result("resources/directory/read", { uri: "skill://notes/refs" })
      assert.isFalse(
        calls.some((call) => call.startsWith("list ")),
        calls.join("\n")
      )

      // a new file: the directories are looked at again
      fs.writeFileSync(join(root, ".agents/skills/notes/b.md"), "b\n")
      calls.length = 0
      yield* result("resources/read", { uri: "skill://notes/b.md" })
      assert.isAbove(count("list .agents/skills/notes"), 0, calls.join("\n"))
      assert.strictEqual(count(`readBytes ${skillMdPath}`), 1)
      assert.strictEqual(count("readBytes .agents/skills/notes/b.md"), 1)

      // skills/list lists the sources and looks at every skill's directories, every time
      for (let round = 0; round < 2; round++) {
        calls.length = 0
        yield* result("skills/list")
        for (const listed of [
          ".agents/skills",
          ".agents/skills/notes",
          ".agents/skills/other",
          ".claude/skills/more"
        ]) {
          assert.isAbove(count(`list ${listed}`), 0, `${listed} in round ${round}:\n${calls.join("\n")}`)
        }
      }
    }).pipe(Effect.scoped)
  )

  it.effect("a symlink next to a skill's files is reported by the first request of any kind, and by skills/list", () =>
    Effect.gen(function* () {
      const outside = yield* makeDirectory({ "secret.txt": "the password\n" })
      const root = yield* makeDirectory({
        ".agents/skills/notes/SKILL.md": skillMd("notes"),
        ".agents/skills/notes/secret.txt": { symlink: join(outside, "secret.txt") }
      })
      const { result, warnings } = yield* serve(root)
      const leftOut = () => warnings().filter((text) => text.includes("notes/secret.txt is left out"))
      yield* result("skills/get", { uri: "skill://notes/SKILL.md" })
      assert.strictEqual(leftOut().length, 1, warnings().join("\n"))
      yield* result("resources/read", { uri: "skill://notes/SKILL.md" })
      yield* result("skills/list")
      assert.strictEqual(leftOut().length, 1)
      // a second link, the files unchanged: skills/list finds it
      fs.symlinkSync(join(outside, "secret.txt"), join(root, ".agents/skills/notes/other.txt"))
      yield* result("skills/list")
      assert.isTrue(
        warnings().some((text) => text.includes("notes/other.txt is left out")),
        warnings().join("\n")
      )
    }).pipe(Effect.scoped)
  )

  it.effect(
    "skills/get finds each name where skills/list does: precedence, links, refused, hidden and denied names",
    () =>
      Effect.gen(function* () {
        const outside = yield* makeDirectory({ "stolen/SKILL.md": skillMd("stolen") })
        const root = yield* makeDirectory({
          ".agents/skills/pdf-processing": { copy: "pdf-processing" },
          ".claude/skills/pdf-processing/SKILL.md": skillMd("pdf-processing", "An older copy"),
          // a file in the first location does not shadow a skill in the next
          ".agents/skills/notes": "not a directory\n",
          ".claude/skills/notes/SKILL.md": skillMd("notes", "The notes in .claude"),
          // a refused directory in the first location does shadow the next one
          ".agents/skills/stolen": { symlink: join(outside, "stolen") },
          ".claude/skills/stolen/SKILL.md": skillMd("stolen"),
          // a skill linked into a location, and a location that is a link
          "shared/linked/SKILL.md": skillMd("linked"),
          ".agents/skills/linked": { symlink: "../../shared/linked" },
          "collection/release-notes": { copy: "release-notes" },
          skills: { symlink: "collection" },
          // names skills/list never has
          ".agents/skills/.hidden/SKILL.md": skillMd("hidden"),
          ".agents/skills/cert.pem/SKILL.md": skillMd("cert"),
          ".agents/skills/a/b/SKILL.md": skillMd("b")
        })
        const { failure, result } = yield* serve(root)
        const page = yield* result("skills/list")
        const listed = new Map<string, any>(page.skills.map((skill: any) => [skill.uri, skill]))
        assert.deepStrictEqual(
          [...listed.keys()],
          [
            "skill://linked/SKILL.md",
            "skill://notes/SKILL.md",
            "skill://pdf-processing/SKILL.md",
            "skill://release-notes/SKILL.md"
          ]
        )
        for (const [uri, entry] of listed) assert.deepStrictEqual((yield* result("skills/get", { uri })).skill, entry)
        assert.strictEqual(listed.get("skill://notes/SKILL.md").frontmatter.description, "The notes in .claude")
        assert.strictEqual(
          listed.get("skill://pdf-processing/SKILL.md").frontmatter.description,
          "Extract, fill, and assemble PDF documents"
        )
        const stolen = yield* failure("skills/get", { uri: "skill://stolen/SKILL.md" })
        assert.strictEqual(stolen.data.reason, "refused")
        assert.include(stolen.message, ".agents/skills/stolen is refused")
        const noSkillMd = yield* failure("skills/get", { uri: "skill://a/SKILL.md" })
        assert.strictEqual(noSkillMd.data.reason, "no_skill_md")
        for (const uri of ["skill://.hidden/SKILL.md", "skill://cert.pem/SKILL.md", "skill://a%2Fb/SKILL.md"]) {
          const unknown = yield* failure("skills/get", { uri })
          assert.strictEqual(unknown.code, -32602, uri)
          assert.include(unknown.message, "Unknown skill", uri)
        }
        const linked = yield* result("resources/read", { uri: "skill://release-notes/SKILL.md" })
        assert.strictEqual(linked.contents[0].text, fs.readFileSync(join(fixtures, "release-notes/SKILL.md"), "utf8"))
      }).pipe(Effect.scoped)
  )

  it.effect("a method of the skills/ prefix that the extension does not have is −32601", () =>
    Effect.gen(function* () {
      const root = yield* makeDirectory({ ".agents/skills/pdf-processing": { copy: "pdf-processing" } })
      const { call } = yield* serve(root)
      const unknown = yield* call("skills/unknown")
      assert.strictEqual(unknown.error?.code, -32601)
    }).pipe(Effect.scoped)
  )
})
