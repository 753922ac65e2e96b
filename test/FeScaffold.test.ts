/**
 * fe_scaffold through the test kit over the real Node workspace: on copies
 * of the installed fixtures `react-app` (Vite + React, single quotes, no
 * semicolons, `.tsx` import extensions, `export function`, exported
 * `interface XProps`) and `next-app` (Next.js app router, double quotes,
 * semicolons, arrow components with `type Props`, CSS Modules, the `@/`
 * alias, `"use client"` hooks) a component, a hook, pages, a util and a test
 * are written, then the project's own `tsc --noEmit`, ESLint and Vitest run
 * on the copy and must pass (real processes), and fe_verify on the Next.js
 * copy. A synthetic project with the opposite conventions (default exports,
 * kebab-case files, plain CSS, `__tests__`, Jest globals, 4-space
 * indentation) gets the opposite output; an empty one gets the defaults
 * with `basedOn: []`. Refusals: unknown kind, bad names and props, a target
 * outside the root or denied, an existing file, a test of a missing file —
 * nothing written.
 */
import { spawnSync } from "node:child_process"
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import * as os from "node:os"
import { dirname, join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FeCapability } from "../capabilities/fe/index.ts"
import * as FeGraph from "../capabilities/fe/graph/cache.ts"
import { scaffold, scaffoldKinds } from "../capabilities/fe/scaffold.ts"
import * as FeState from "../capabilities/fe/state.ts"
import * as NodeCommandRunner from "../layers/NodeCommandRunner.ts"
import * as NodeWorkspace from "../layers/NodeWorkspace.ts"
import * as Capability from "../src/Capability.ts"
import * as ServerConfig from "../src/ServerConfig.ts"
import { TestClient } from "../src/testing.ts"
import { WorkspaceRoot } from "../src/WorkspaceRoot.ts"
import { fixtureDir } from "./support/feFixtures.ts"

const temps: Array<string> = []
const tempDir = () => {
  const dir = realpathSync(mkdtempSync(join(os.tmpdir(), "fe-scaffold-")))
  temps.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true })
})

/** A copy of an installed fixture without its node_modules, which is linked to the fixture's. */
const copyFixture = (name: "react-app" | "next-app"): string => {
  const source = fixtureDir(name)
  const root = tempDir()
  cpSync(source, root, {
    recursive: true,
    filter: (path) =>
      !/[\\/](node_modules|\.next)([\\/]|$)/.test(path.slice(source.length)) && !path.endsWith(".tsbuildinfo")
  })
  symlinkSync(join(source, "node_modules"), join(root, "node_modules"), "dir")
  return root
}

const writeTree = (files: Record<string, string>): string => {
  const root = tempDir()
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

const setup = (root: string) =>
  TestClient.make(
    Capability.make({ id: "fe", description: "test", version: "0" }, Effect.succeed({ tools: [scaffold] })).pipe(
      Layer.provide(Layer.merge(FeGraph.layer, FeState.layer)),
      Layer.provide(NodeWorkspace.layer({ root }))
    )
  )

// The runtime adds `confirm` to a destructive tool's input; a client that cannot be asked passes it.
const call = (client: TestClient.TestClient, args: Record<string, unknown>) =>
  Effect.map(client.callToolStructured("fe_scaffold", { ...args, confirm: true }), (result) => result as any)

const refused = (client: TestClient.TestClient, args: Record<string, unknown>, code: string) =>
  client.expectToolError("fe_scaffold", { ...args, confirm: true }, code)

const errorText = (result: { readonly content: ReadonlyArray<any> }) =>
  result.content.map((c: any) => (typeof c.text === "string" ? c.text : "")).join("\n")

/** Runs one of the project's own tools (a package's bin script) in `root`, with the Node running the tests. */
const runTool = (root: string, script: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(process.execPath, [join(root, "node_modules", script), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" }
  })
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` }
}

const assertPasses = (root: string, script: string, args: ReadonlyArray<string>) => {
  const { output, status } = runTool(root, script, args)
  assert.strictEqual(status, 0, `${script} ${args.join(" ")} failed:\n${output}`)
}

const files = (result: any): Record<string, string> =>
  Object.fromEntries(result.files.map((f: any) => [f.path, f.content]))

/** Every file under a root (node_modules left out), for "nothing was written". */
const listing = (root: string): Array<string> =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.parentPath.includes("node_modules"))
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort()

describe("fe_scaffold", () => {
  it.live(
    "react-app: component, hook, util and test in its style pass its own tsc, ESLint and Vitest",
    () =>
      Effect.gen(function* () {
        const root = copyFixture("react-app")
        const client = yield* setup(root)
        const component = yield* call(client, {
          kind: "component",
          name: "UserCard",
          props: [
            { name: "item", type: "Item" },
            { name: "label", type: "string" },
            { name: "selected", type: "boolean", optional: true },
            { name: "onSelect", type: "() => void", optional: true },
            { name: "children", type: "ReactNode", optional: true }
          ],
          write: true
        })
        assert.isTrue(component.written)
        const card = files(component)["src/components/UserCard.tsx"]!
        assert.deepStrictEqual(Object.keys(files(component)), ["src/components/UserCard.tsx"])
        // ItemList's style: single quotes, no semicolons, `.ts` extensions, export function, exported interface.
        assert.include(card, "import type { ReactNode } from 'react'\n")
        assert.include(card, "import type { Item } from '../hooks/useItems.ts'\n")
        assert.include(card, "export interface UserCardProps {\n  item: Item\n")
        assert.include(card, "export function UserCard({ item, label, selected, onSelect, children }: UserCardProps) {")
        assert.notInclude(card, ";")
        assert.notInclude(card, '"react"')
        assert.deepStrictEqual(component.files[0].basedOn, ["src/components/ItemList.tsx"])
        assert.deepStrictEqual(component.conventions.exportStyle, {
          value: "named",
          from: ["src/components/ItemList.tsx"]
        })
        assert.strictEqual(component.conventions.quotes.value, "single")
        assert.strictEqual(component.conventions.relativeImportExtensions.value, "true")
        assert.strictEqual(readFileSync(join(root, "src/components/UserCard.tsx"), "utf8"), card)

        const hook = yield* call(client, { kind: "hook", name: "useToggle", write: true })
        assert.deepStrictEqual(Object.keys(files(hook)), ["src/hooks/useToggle.ts"])
        assert.include(files(hook)["src/hooks/useToggle.ts"], "export function useToggle<T>(initial: T) {")
        assert.deepStrictEqual(hook.files[0].basedOn, ["src/hooks/useItems.ts"])

        const util = yield* call(client, { kind: "util", name: "clampText", write: true })
        assert.deepStrictEqual(Object.keys(files(util)), ["src/utils/clampText.ts"])

        const test = yield* call(client, { kind: "test", name: "src/components/UserCard.tsx", write: true })
        const testText = files(test)["src/components/UserCard.test.tsx"]!
        assert.include(testText, "import { describe, expect, it } from 'vitest'\n")
        assert.include(testText, "import { UserCard } from './UserCard.tsx'\n")
        assert.deepStrictEqual(test.files[0].basedOn, ["src/utils/format.test.ts"])
        assert.include(test.next, "fe_verify")

        assertPasses(root, "typescript/bin/tsc", ["--noEmit", "-p", "tsconfig.app.json"])
        assertPasses(root, "eslint/bin/eslint.js", ["."])
        assertPasses(root, "vitest/vitest.mjs", ["run", "src/components/UserCard.test.tsx"])
      }).pipe(Effect.scoped),
    90_000
  )

  it.live(
    "next-app: component with a CSS module, hook, static and dynamic pages, util and test pass tsc, ESLint, Vitest and fe_verify",
    () =>
      Effect.gen(function* () {
        const root = copyFixture("next-app")
        const client = yield* setup(root)
        const component = yield* call(client, {
          kind: "component",
          name: "PostCard",
          props: [
            { name: "post", type: "Post" },
            { name: "title", type: "string" }
          ],
          write: true
        })
        const written = files(component)
        assert.deepStrictEqual(Object.keys(written).sort(), [
          "components/PostCard.module.css",
          "components/PostCard.tsx"
        ])
        const card = written["components/PostCard.tsx"]!
        // Button/Card/Counter's style: arrow components, `type Props`, CSS Modules named after the component, `@/`.
        assert.include(card, 'import type { Post } from "@/lib/posts";\n')
        assert.include(card, 'import styles from "./PostCard.module.css";\n')
        assert.include(card, "type Props = {\n  post: Post;\n  title: string;\n};")
        assert.include(card, "export const PostCard = ({ post, title }: Props) => {")
        assert.include(card, "className={styles.postCard}")
        assert.strictEqual(written["components/PostCard.module.css"], ".postCard {\n  display: block;\n}\n")
        assert.strictEqual(component.conventions.importAlias.value, "@/")
        assert.strictEqual(component.conventions.declaration.value, "arrow")
        assert.strictEqual(component.conventions.css.value, "module module.css")
        assert.include(component.files[1].basedOn[0], ".module.css")

        const hook = yield* call(client, { kind: "hook", name: "useToggle", write: true })
        const hookText = files(hook)["hooks/useToggle.ts"]!
        assert.isTrue(hookText.startsWith('"use client";\n\nimport { useState } from "react";\n'))
        assert.include(hookText, "export const useToggle = <T>(initial: T) => {")

        const page = yield* call(client, { kind: "page", name: "settings", write: true })
        const pageText = files(page)["app/settings/page.tsx"]!
        assert.include(pageText, "export default function SettingsPage() {")
        assert.include(pageText, "export const metadata: Metadata = {")
        assert.include(pageText, 'import styles from "../page.module.css";')

        const dynamic = yield* call(client, { kind: "page", name: "products/[id]", write: true })
        const dynamicText = files(dynamic)["app/products/[id]/page.tsx"]!
        assert.include(dynamicText, "params: Promise<{ id: string }>;")
        assert.include(dynamicText, "export async function generateMetadata({ params }: Props): Promise<Metadata> {")
        assert.include(dynamicText, "export default async function ProductsPage({ params }: Props) {")
        assert.include(dynamicText, "const { id } = await params;")
        assert.deepStrictEqual(dynamic.conventions.params, { value: "Promise", from: ["app/blog/[slug]/page.tsx"] })

        const catchAll = yield* call(client, { kind: "page", name: "(marketing)/docs/[...slug]", write: true })
        assert.include(
          files(catchAll)["app/(marketing)/docs/[...slug]/page.tsx"],
          "params: Promise<{ slug: string[] }>;"
        )

        // Two parameters: the metadata reads only the one it shows (ESLint's no-unused-vars stays quiet).
        const shop = yield* call(client, { kind: "page", name: "shop/[category]/[id]", write: true })
        const shopText = files(shop)["app/shop/[category]/[id]/page.tsx"]!
        assert.include(shopText, "params: Promise<{ category: string; id: string }>;")
        assert.include(shopText, "  const { category } = await params;\n  return { title: category };")
        assert.include(shopText, "  const { category, id } = await params;\n")

        const util = yield* call(client, { kind: "util", name: "truncate", write: true })
        assert.deepStrictEqual(Object.keys(files(util)), ["lib/truncate.ts"])
        assert.include(files(util)["lib/truncate.ts"], "export const truncate = (value: string): string =>")

        const test = yield* call(client, { kind: "test", name: "components/PostCard.tsx", write: true })
        const testText = files(test)["components/PostCard.test.tsx"]!
        assert.include(testText, 'import { PostCard } from "./PostCard";\n')
        assert.deepStrictEqual(test.files[0].basedOn, ["lib/format.test.ts"])

        assertPasses(root, "typescript/bin/tsc", ["--noEmit", "-p", "tsconfig.json"])
        assertPasses(root, "eslint/bin/eslint.js", [".", "--max-warnings", "0"])
        assertPasses(root, "vitest/vitest.mjs", ["run", "components/PostCard.test.tsx"])

        // fe_verify detects Next.js and passes every step on the fixture itself (the copy's node_modules is a link,
        // which the workspace does not follow).
        const fixture = fixtureDir("next-app")
        const fe = yield* TestClient.make(
          FeCapability.pipe(
            Layer.provide(NodeCommandRunner.layer()),
            Layer.provide(NodeWorkspace.layer({ root: fixture })),
            Layer.provide(Layer.succeed(WorkspaceRoot, fixture)),
            Layer.provideMerge(ServerConfig.layer({ shutdownGraceMs: 0 }))
          )
        )
        const verify = (yield* fe.callToolStructured("fe_verify", {})) as any
        assert.strictEqual(verify.project.framework, "next")
        assert.isTrue(verify.ok, JSON.stringify(verify.steps))
        assert.deepStrictEqual(
          verify.steps.map((s: any) => `${s.step} ${s.status}`),
          ["typecheck passed", "lint passed", "test passed"]
        )
      }).pipe(Effect.scoped),
    90_000
  )

  it.effect("a project with the opposite conventions gets the opposite output", () =>
    Effect.gen(function* () {
      const card = (name: string, title: string) =>
        `import './${name}.css'\n\ninterface Props {\n    title: string\n}\n\nexport default function ${title}({ title }: Props) {\n    return <div className='${name}'>{title}</div>\n}\n`
      const root = writeTree({
        "package.json": JSON.stringify({
          name: "opposite",
          dependencies: { react: "19.0.0" },
          devDependencies: { jest: "30.0.0", typescript: "6.0.0" }
        }),
        "tsconfig.json": "{}",
        "src/components/user-avatar.tsx": card("user-avatar", "UserAvatar"),
        "src/components/user-avatar.css": ".user-avatar {\n    border-radius: 50%;\n}\n",
        "src/components/site-footer.tsx": card("site-footer", "SiteFooter"),
        "src/components/site-footer.css": ".site-footer {\n    padding: 1rem;\n}\n",
        "src/hooks/use-window-size.ts":
          "import { useState } from 'react'\n\nconst useWindowSize = () => {\n    const [size] = useState(0)\n    return size\n}\n\nexport default useWindowSize\n",
        "src/components/__tests__/site-footer.test.tsx":
          "import { render } from '@testing-library/react'\nimport SiteFooter from '../site-footer'\n\ntest('renders', () => {\n    render(<SiteFooter title='x' />)\n})\n",
        "src/components/app-logo.tsx": "export default function AppLogo() {\n    return <img alt='logo' />\n}\n"
      })
      const client = yield* setup(root)
      const component = yield* call(client, { kind: "component", name: "UserCard", props: [{ name: "title" }] })
      assert.isFalse(component.written)
      assert.deepStrictEqual(listing(root).includes("src/components/user-card.tsx"), false)
      const text = files(component)
      assert.deepStrictEqual(Object.keys(text).sort(), ["src/components/user-card.css", "src/components/user-card.tsx"])
      assert.strictEqual(
        text["src/components/user-card.tsx"],
        "import './user-card.css'\n\ninterface Props {\n    title: string\n}\n\nexport default function UserCard({ title }: Props) {\n    return (\n        <div className=\"user-card\">\n            <p>{title}</p>\n        </div>\n    )\n}\n"
      )
      assert.strictEqual(text["src/components/user-card.css"], ".user-card {\n    display: block;\n}\n")
      assert.strictEqual(component.conventions.fileNaming.value, "kebab-case")
      assert.strictEqual(component.conventions.exportStyle.value, "default")
      assert.strictEqual(component.conventions.indent.value, "4 spaces")
      assert.isUndefined(component.conventions.importAlias)

      const hook = yield* call(client, { kind: "hook", name: "useToggle" })
      assert.strictEqual(
        files(hook)["src/hooks/use-toggle.ts"],
        "import { useState } from 'react'\n\nconst useToggle = <T>(initial: T) => {\n    const [value, setValue] = useState(initial)\n    return { value, setValue }\n}\n\nexport default useToggle\n"
      )

      const test = yield* call(client, { kind: "test", name: "src/components/user-avatar.tsx" })
      assert.strictEqual(
        files(test)["src/components/__tests__/user-avatar.test.tsx"],
        "import UserAvatar from '../user-avatar'\n\ntest('UserAvatar is exported', () => {\n    expect(UserAvatar).toBeDefined()\n})\n"
      )
      assert.strictEqual(test.conventions.location.value, "__tests__")
      assert.strictEqual(test.conventions.testingLibrary.value, "yes")
      // A component without props is rendered with Testing Library, as the project's tests do.
      const logo = yield* call(client, { kind: "test", name: "src/components/app-logo.tsx" })
      assert.strictEqual(
        files(logo)["src/components/__tests__/app-logo.test.tsx"],
        "import { render } from '@testing-library/react'\nimport AppLogo from '../app-logo'\n\ntest('AppLogo renders', () => {\n    const { container } = render(<AppLogo />)\n    expect(container.firstChild).not.toBeNull()\n})\n"
      )
      assert.strictEqual(test.conventions.runnerImports.value, "globals")
    }).pipe(Effect.scoped)
  )

  it.effect("other layouts: folder per component with a barrel, FC, Tailwind; Next pages router; SvelteKit; Nuxt", () =>
    Effect.gen(function* () {
      const folder = writeTree({
        "package.json": JSON.stringify({ name: "ui", dependencies: { react: "19.0.0", tailwindcss: "4.0.0" } }),
        "tsconfig.json": "{}",
        "src/components/Button/Button.tsx":
          'import type { FC } from "react"\n\nexport type ButtonProps = {\n  label: string\n}\n\nexport const Button: FC<ButtonProps> = ({ label }) => <button className="px-2 py-1">{label}</button>\n',
        "src/components/Button/index.ts": 'export * from "./Button"\n',
        "src/components/Badge/Badge.tsx":
          'import type { FC } from "react"\n\nexport const Badge: FC = () => <span className="rounded">new</span>\n',
        "src/components/Badge/index.ts": 'export * from "./Badge"\n'
      })
      const component = yield* call(yield* setup(folder), {
        kind: "component",
        name: "UserCard",
        props: [{ name: "name" }]
      })
      assert.deepStrictEqual(Object.keys(files(component)).sort(), [
        "src/components/UserCard/UserCard.tsx",
        "src/components/UserCard/index.ts"
      ])
      const card = files(component)["src/components/UserCard/UserCard.tsx"]!
      assert.include(card, 'import type { FC } from "react"\n')
      assert.include(card, "export const UserCard: FC<UserCardProps> = ({ name }) => {")
      assert.include(card, "export type UserCardProps = {")
      assert.include(card, 'className="')
      assert.strictEqual(files(component)["src/components/UserCard/index.ts"], 'export * from "./UserCard"\n')
      assert.strictEqual(component.conventions.layout.value, "folder")
      assert.strictEqual(component.conventions.css.value, "tailwind")
      // Barrels that name what they re-export get a new one in the same form.
      const named = writeTree({
        "package.json": JSON.stringify({ name: "ui", dependencies: { react: "19.0.0" } }),
        "tsconfig.json": "{}",
        "src/components/Button/Button.tsx": "export function Button() {\n  return <button>ok</button>\n}\n",
        "src/components/Button/index.ts": 'export { Button } from "./Button"\n',
        "src/components/Badge/Badge.tsx": "export function Badge() {\n  return <span>new</span>\n}\n",
        "src/components/Badge/index.ts": 'export { Badge } from "./Badge"\n'
      })
      const namedCard = yield* call(yield* setup(named), { kind: "component", name: "UserCard" })
      assert.strictEqual(
        files(namedCard)["src/components/UserCard/index.ts"],
        'export { UserCard } from "./UserCard"\n'
      )

      const pagesRouter = writeTree({
        "package.json": JSON.stringify({ name: "p", dependencies: { next: "14.2.0", react: "18.3.0" } }),
        "tsconfig.json": "{}",
        "pages/index.tsx": "export default function HomePage() {\n  return <main>Home</main>;\n}\n",
        "pages/about.tsx": "export default function AboutPage() {\n  return <main>About</main>;\n}\n"
      })
      const page = yield* call(yield* setup(pagesRouter), { kind: "page", name: "contact" })
      assert.deepStrictEqual(Object.keys(files(page)), ["pages/contact.tsx"])
      assert.include(files(page)["pages/contact.tsx"], "export default function ContactPage() {")
      assert.strictEqual(page.conventions.router.value, "next pages router")
      assert.deepStrictEqual(page.files[0].basedOn, ["pages/about.tsx", "pages/index.tsx"])

      const routed = writeTree({
        "package.json": JSON.stringify({ name: "r", dependencies: { react: "19.0.0", "react-router": "7.0.0" } }),
        "tsconfig.json": "{}",
        "src/pages/HomePage.tsx":
          "const HomePage = () => {\n  return <main>Home</main>;\n};\n\nexport default HomePage;\n",
        "src/pages/AboutPage.tsx":
          "const AboutPage = () => {\n  return <main>About</main>;\n};\n\nexport default AboutPage;\n"
      })
      const routedPage = yield* call(yield* setup(routed), { kind: "page", name: "settings" })
      assert.deepStrictEqual(Object.keys(files(routedPage)), ["src/pages/SettingsPage.tsx"])
      assert.include(files(routedPage)["src/pages/SettingsPage.tsx"], "const SettingsPage = () => {")
      assert.include(files(routedPage)["src/pages/SettingsPage.tsx"], "export default SettingsPage;")
      assert.include(routedPage.next, "router")

      const kit = writeTree({
        "package.json": JSON.stringify({ name: "k", devDependencies: { "@sveltejs/kit": "2.0.0", svelte: "5.0.0" } }),
        "src/routes/+page.svelte": '<script lang="ts">\n  let count = $state(0);\n</script>\n\n<h1>{count}</h1>\n'
      })
      const kitPage = yield* call(yield* setup(kit), { kind: "page", name: "blog/[slug]" })
      assert.deepStrictEqual(Object.keys(files(kitPage)), ["src/routes/blog/[slug]/+page.svelte"])
      assert.include(files(kitPage)["src/routes/blog/[slug]/+page.svelte"], '<script lang="ts">')
      assert.include(files(kitPage)["src/routes/blog/[slug]/+page.svelte"], "page.params.slug")

      const nuxt = writeTree({
        "package.json": JSON.stringify({ name: "n", dependencies: { nuxt: "3.0.0" } }),
        "pages/index.vue": "<template>\n  <main>Home</main>\n</template>\n"
      })
      const nuxtPage = yield* call(yield* setup(nuxt), { kind: "page", name: "users/[id]" })
      assert.deepStrictEqual(Object.keys(files(nuxtPage)), ["pages/users/[id].vue"])
      assert.include(files(nuxtPage)["pages/users/[id].vue"], "route.params.id")
    }).pipe(Effect.scoped)
  )

  it.effect("a project without examples gets minimal defaults and says so (basedOn empty)", () =>
    Effect.gen(function* () {
      const root = writeTree({
        "package.json": JSON.stringify({ name: "empty", dependencies: { react: "19.0.0" } }),
        "tsconfig.json": "{}",
        "src/main.ts": "console.log(1)\n"
      })
      const client = yield* setup(root)
      const component = yield* call(client, { kind: "component", name: "Badge" })
      assert.deepStrictEqual(
        component.files.map((f: any) => [f.path, f.basedOn]),
        [["src/components/Badge.tsx", []]]
      )
      assert.match(component.notes.join(" "), /no component to model on/)
      assert.deepStrictEqual(component.conventions.exportStyle, { value: "named", from: [] })
      const hook = yield* call(client, { kind: "hook", name: "useBadge" })
      assert.deepStrictEqual(hook.files[0].basedOn, [])
      assert.strictEqual(hook.files[0].path, "src/hooks/useBadge.ts")
      // A target directory, or a whole path, instead of the default place.
      const inDir = yield* call(client, { kind: "component", name: "Badge", target: "src/ui" })
      assert.strictEqual(inDir.files[0].path, "src/ui/Badge.tsx")
      const atPath = yield* call(client, { kind: "component", name: "Badge", target: "src/ui/fancy-badge.tsx" })
      assert.strictEqual(atPath.files[0].path, "src/ui/fancy-badge.tsx")
      yield* refused(client, { kind: "component", name: "Badge", target: "src/main.ts" }, "exists")
    }).pipe(Effect.scoped)
  )

  /** A synthetic TypeScript React project whose node_modules is the installed react-app fixture's (React types). */
  const reactTree = (files: Record<string, string>): string => {
    const root = writeTree({
      "package.json": JSON.stringify({
        name: "tree",
        type: "module",
        dependencies: { react: "19.0.0" },
        devDependencies: { typescript: "6.0.0", "@types/react": "19.0.0" }
      }),
      "tsconfig.json": JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "bundler",
          jsx: "react-jsx",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          noUnusedLocals: true,
          noUnusedParameters: true,
          types: []
        },
        include: ["src"]
      }),
      ...files
    })
    symlinkSync(join(fixtureDir("react-app"), "node_modules"), join(root, "node_modules"), "dir")
    return root
  }

  it.live(
    "kebab-case component folders are followed (folder, default export, barrel) and the result compiles",
    () =>
      Effect.gen(function* () {
        const root = reactTree({
          "src/components/user-card/UserCard.tsx":
            'import { useState } from "react";\n\nexport default function UserCard(props: { name: string }) {\n  const [open, setOpen] = useState(false);\n  return <div onClick={() => setOpen(!open)}>{props.name}</div>;\n}\n',
          "src/components/user-card/index.ts": 'export { default } from "./UserCard";\n',
          "src/components/nav-bar/NavBar.tsx":
            "export default function NavBar(props: { title: string }) {\n  return <nav>{props.title}</nav>;\n}\n",
          "src/components/nav-bar/index.ts": 'export { default } from "./NavBar";\n',
          "src/App.tsx":
            'import UserCard from "./components/user-card";\nimport NavBar from "./components/nav-bar";\n\nexport function App() {\n  return (\n    <>\n      <NavBar title="x" />\n      <UserCard name="y" />\n    </>\n  );\n}\n'
        })
        const client = yield* setup(root)
        const result = yield* call(client, {
          kind: "component",
          name: "PriceTag",
          props: [{ name: "amount", type: "number" }],
          write: true
        })
        assert.deepStrictEqual(Object.keys(files(result)).sort(), [
          "src/components/price-tag/PriceTag.tsx",
          "src/components/price-tag/index.ts"
        ])
        // Its props typed inline, as UserCard's and NavBar's are.
        assert.include(
          files(result)["src/components/price-tag/PriceTag.tsx"],
          "export default function PriceTag({ amount }: { amount: number }) {"
        )
        assert.strictEqual(result.conventions.props.value, "inline")
        assert.strictEqual(
          files(result)["src/components/price-tag/index.ts"],
          'export { default } from "./PriceTag";\n'
        )
        assert.strictEqual(result.conventions.folder.value, "src/components")
        assert.strictEqual(result.conventions.folderNaming.value, "kebab-case")
        assert.strictEqual(result.conventions.exportStyle.value, "default")
        // Used the way the others are: through the folder's barrel.
        writeFileSync(
          join(root, "src/Use.tsx"),
          'import PriceTag from "./components/price-tag";\n\nexport const Use = () => <PriceTag amount={1} />;\n'
        )
        assertPasses(root, "typescript/bin/tsc", ["--noEmit", "-p", "tsconfig.json"])
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a target file gets no folder barrel; a component target must be .tsx/.jsx",
    () =>
      Effect.gen(function* () {
        const root = reactTree({
          "src/components/UserCard/UserCard.tsx": "export function UserCard() {\n  return <div>card</div>;\n}\n",
          "src/components/UserCard/index.ts": 'export * from "./UserCard";\n',
          "src/components/NavBar/NavBar.tsx": "export function NavBar() {\n  return <nav>nav</nav>;\n}\n",
          "src/components/NavBar/index.ts": 'export * from "./NavBar";\n'
        })
        const client = yield* setup(root)
        const result = yield* call(client, {
          kind: "component",
          name: "Foo",
          target: "src/components/Bar.tsx",
          write: true
        })
        assert.deepStrictEqual(Object.keys(files(result)), ["src/components/Bar.tsx"])
        assert.isFalse(existsSync(join(root, "src/components/index.ts")))
        assertPasses(root, "typescript/bin/tsc", ["--noEmit", "-p", "tsconfig.json"])
        const before = listing(root)
        const refusal = yield* refused(
          client,
          { kind: "component", name: "Bar", target: "src/lib/Bar.ts", write: true },
          "invalid_target"
        )
        assert.include(errorText(refusal), "JSX")
        assert.include(errorText(refusal), 'target "src/lib/Bar.tsx"')
        assert.deepStrictEqual(listing(root), before)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a JavaScript project's component has untyped props (valid .jsx for tsc)",
    () =>
      Effect.gen(function* () {
        const root = writeTree({
          "package.json": JSON.stringify({
            name: "js",
            type: "module",
            dependencies: { react: "19.0.0", tailwindcss: "4.0.0" }
          }),
          "src/components/Header.jsx":
            'export default function Header({ title }) {\n  return <header className="p-4">{title}</header>;\n}\n',
          "src/components/Footer.jsx":
            'export default function Footer({ year }) {\n  return <footer className="p-2">{year}</footer>;\n}\n'
        })
        const client = yield* setup(root)
        const result = yield* call(client, {
          kind: "component",
          name: "PriceTag",
          props: [
            { name: "amount", type: "number" },
            { name: "label", type: "ReactNode", optional: true }
          ],
          write: true
        })
        const text = files(result)["src/components/PriceTag.jsx"]!
        assert.include(text, "export default function PriceTag({ amount, label }) {")
        assert.notInclude(text, "interface")
        assert.notInclude(text, "import type")
        assert.notInclude(text, "PriceTagProps")
        const tsc = spawnSync(
          process.execPath,
          [
            join(process.cwd(), "node_modules/typescript/bin/tsc"),
            "--allowJs",
            "--noEmit",
            "--jsx",
            "react-jsx",
            "--module",
            "esnext",
            "--moduleResolution",
            "bundler",
            "--skipLibCheck",
            "src/components/PriceTag.jsx"
          ],
          { cwd: root, encoding: "utf8" }
        )
        assert.strictEqual(tsc.status, 0, tsc.stdout + tsc.stderr)
      }).pipe(Effect.scoped),
    60_000
  )

  it.effect("props that would not compile are refused: restricted names, duplicates, names the body uses", () =>
    Effect.gen(function* () {
      const root = writeTree({
        "package.json": JSON.stringify({ name: "m", dependencies: { react: "19.0.0" } }),
        "tsconfig.json": "{}",
        "src/components/Card.tsx":
          'import styles from "./Card.module.css";\n\nexport function Card() {\n  return <div className={styles.card}>card</div>;\n}\n',
        "src/components/Card.module.css": ".card {\n  display: block;\n}\n"
      })
      const client = yield* setup(root)
      for (const name of ["eval", "arguments"]) {
        const refusal = yield* refused(client, { kind: "component", name: "Tag", props: [{ name }] }, "invalid_props")
        assert.include(errorText(refusal), name)
      }
      yield* refused(client, { kind: "component", name: "Tag", props: [{ name: "a" }, { name: "a" }] }, "invalid_props")
      const styles = yield* refused(
        client,
        { kind: "component", name: "Tag", props: [{ name: "styles" }] },
        "invalid_props"
      )
      assert.include(errorText(styles), "CSS module")
      yield* refused(client, { kind: "component", name: "Tag", props: [{ name: "Tag" }] }, "invalid_props")
      yield* refused(client, { kind: "util", name: "eval" }, "invalid_name")
      // React's own key is never passed to a component.
      const key = yield* refused(client, { kind: "component", name: "Tag", props: [{ name: "key" }] }, "invalid_props")
      assert.include(errorText(key), "React")
      // The same names are fine where nothing uses them: a prop "styles" without a CSS module.
      const plain = writeTree({
        "package.json": JSON.stringify({ name: "p", dependencies: { react: "19.0.0" } }),
        "tsconfig.json": "{}",
        "src/components/Card.tsx": "export function Card() {\n  return <div>card</div>;\n}\n"
      })
      const ok = yield* call(yield* setup(plain), { kind: "component", name: "Tag", props: [{ name: "styles" }] })
      assert.include(files(ok)["src/components/Tag.tsx"], "{ styles }")
    }).pipe(Effect.scoped)
  )

  it.effect("invalid routes are refused with the reason; invalid names get a valid suggestion or none", () =>
    Effect.gen(function* () {
      const root = writeTree({
        "package.json": JSON.stringify({ name: "n", dependencies: { next: "15.0.0", react: "19.0.0" } }),
        "tsconfig.json": "{}",
        "app/page.tsx": "export default function HomePage() {\n  return <main>Home</main>;\n}\n"
      })
      const client = yield* setup(root)
      const twice = yield* refused(client, { kind: "page", name: "x/[id]/[id]" }, "invalid_name")
      assert.include(errorText(twice), '"id" appears twice')
      assert.include(errorText(twice), "products/[id]")
      const rest = yield* refused(client, { kind: "page", name: "a/[...rest]/b" }, "invalid_name")
      assert.include(errorText(rest), "must be the last")
      assert.include(errorText(rest), "docs/[...slug]")
      const optional = yield* refused(client, { kind: "page", name: "a/[[...rest]]/b" }, "invalid_name")
      assert.include(errorText(optional), "must be the last")
      const ok = yield* call(client, { kind: "page", name: "a/[...rest]" })
      assert.deepStrictEqual(Object.keys(files(ok)), ["app/a/[...rest]/page.tsx"])

      const use = yield* refused(client, { kind: "hook", name: "use" }, "invalid_name")
      assert.notInclude(errorText(use), 'name "use"')
      const digits = yield* refused(client, { kind: "component", name: "123abc" }, "invalid_name")
      assert.notInclude(errorText(digits), 'name "123abc"')
      const accents = yield* refused(client, { kind: "component", name: "ünïcode" }, "invalid_name")
      assert.include(errorText(accents), 'name "Unicode"')
    }).pipe(Effect.scoped)
  )

  it.effect(
    "refusals: unknown kind, bad names and props, outside the root, denied, existing files — nothing written",
    () =>
      Effect.gen(function* () {
        const root = copyFixture("react-app")
        const before = listing(root)
        const client = yield* setup(root)
        const kind = yield* refused(client, { kind: "store", name: "cart" }, "unknown_kind")
        for (const k of scaffoldKinds) assert.include(errorText(kind), k)
        const component = yield* refused(client, { kind: "component", name: "user-card" }, "invalid_name")
        assert.include(errorText(component), 'name "UserCard"')
        const hook = yield* refused(client, { kind: "hook", name: "toggle" }, "invalid_name")
        assert.include(errorText(hook), 'name "useToggle"')
        yield* refused(client, { kind: "util", name: "delete" }, "invalid_name")
        yield* refused(client, { kind: "page", name: "../etc" }, "invalid_name")
        yield* refused(client, { kind: "component", name: "Card", props: [{ name: "a b" }] }, "invalid_props")
        yield* refused(client, { kind: "component", name: "Card", target: "../outside" }, "path_rejected:escapes_root")
        yield* refused(client, { kind: "component", name: "Card", target: ".git/hooks" }, "path_rejected:denied")
        const exists = yield* refused(client, { kind: "component", name: "ItemList", write: true }, "exists")
        assert.include(errorText(exists), "src/components/ItemList.tsx exists already")
        yield* refused(client, { kind: "hook", name: "useItems", write: true }, "exists")
        const missing = yield* refused(client, { kind: "test", name: "src/utils/formt.ts" }, "unknown_file")
        assert.notInclude(errorText(missing), "undefined")
        yield* refused(client, { kind: "test", name: "src/utils/format.test.ts" }, "unknown_file")
        // A page in a React project without a pages directory: said, with the next call.
        const page = yield* refused(client, { kind: "page", name: "settings" }, "no_pages_directory")
        assert.include(errorText(page), 'kind "component"')
        assert.deepStrictEqual(listing(root), before)
        // Created once; a second write of the same is refused and leaves it as it was.
        const first = yield* call(client, { kind: "component", name: "Tag", write: true })
        const path = join(root, "src/components/Tag.tsx")
        assert.strictEqual(readFileSync(path, "utf8"), first.files[0].content)
        yield* refused(client, { kind: "component", name: "Tag", write: true }, "exists")
        assert.isTrue(existsSync(path))
        assert.strictEqual(readFileSync(path, "utf8"), first.files[0].content)
      }).pipe(Effect.scoped)
  )
})
