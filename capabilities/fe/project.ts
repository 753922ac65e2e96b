/**
 * Project detection for the `fe` tools: framework, package manager,
 * tsconfig, lint tool, test runner and source directory, read from the
 * workspace's `package.json`, lockfiles and configuration files.
 *
 * @since 0.1.0
 */
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/**
 * What the `fe` tools know of the project at the workspace root.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ProjectInfo = Schema.Struct({
  name: Schema.NullOr(Schema.String).annotate({ description: "package.json's name, or null." }),
  framework: Schema.Literals(["next", "nuxt", "sveltekit", "astro", "react", "vue", "svelte", "none"]),
  packageManager: Schema.Literals(["npm", "pnpm", "yarn", "bun"]),
  lockfile: Schema.NullOr(Schema.String).annotate({ description: "The lockfile found, or null." }),
  tsconfig: Schema.NullOr(Schema.String).annotate({ description: "The tsconfig the typecheck uses, or null." }),
  linter: Schema.Literals(["eslint", "biome", "none"]),
  testRunner: Schema.Literals(["vitest", "jest", "playwright", "none"]),
  sourceDir: Schema.String.annotate({ description: 'The source directory ("src", "app", … or "." ).' }),
  dependencies: Schema.Array(Schema.String).annotate({
    description: "The names in dependencies, devDependencies and peerDependencies."
  })
})

/**
 * @category models
 * @since 0.1.0
 */
export type ProjectInfo = typeof ProjectInfo.Type

/**
 * The lockfiles, in the order they decide the package manager.
 *
 * **Example**
 *
 * ```ts
 * import { lockfiles } from "./capabilities/fe/project.ts"
 *
 * lockfiles[0] // => { file: "pnpm-lock.yaml", manager: "pnpm" }
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const lockfiles: ReadonlyArray<{ readonly file: string; readonly manager: ProjectInfo["packageManager"] }> = [
  { file: "pnpm-lock.yaml", manager: "pnpm" },
  { file: "bun.lock", manager: "bun" },
  { file: "bun.lockb", manager: "bun" },
  { file: "yarn.lock", manager: "yarn" },
  { file: "package-lock.json", manager: "npm" },
  { file: "npm-shrinkwrap.json", manager: "npm" }
]

const eslintConfigs = [
  "eslint.config.js",
  "eslint.config.mjs",
  "eslint.config.cjs",
  "eslint.config.ts",
  "eslint.config.mts",
  "eslint.config.cts",
  ".eslintrc.js",
  ".eslintrc.cjs",
  ".eslintrc.json",
  ".eslintrc.yml",
  ".eslintrc.yaml",
  ".eslintrc"
]
const biomeConfigs = ["biome.json", "biome.jsonc"]
const configExtensions = ["ts", "mts", "cts", "js", "mjs", "cjs"]
const vitestConfigs = [
  ...configExtensions.map((ext) => `vitest.config.${ext}`),
  ...configExtensions.map((ext) => `vite.config.${ext}`)
]
const jestConfigs = [...configExtensions.map((ext) => `jest.config.${ext}`), "jest.config.json"]
const playwrightConfigs = configExtensions.map((ext) => `playwright.config.${ext}`)
const tsconfigs = ["tsconfig.json", "jsconfig.json"]
const sourceDirs = ["src", "app", "lib", "pages", "components"]

/**
 * Every file whose presence or content the detection depends on: when none
 * of them changed (same size and modification time), the last detection
 * still holds.
 *
 * **Example**
 *
 * ```ts
 * import { watchedFiles } from "./capabilities/fe/project.ts"
 *
 * watchedFiles.includes("package.json") // => true
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const watchedFiles: ReadonlyArray<string> = [
  "package.json",
  ...lockfiles.map((entry) => entry.file),
  ...tsconfigs,
  ...eslintConfigs,
  ...biomeConfigs,
  ...vitestConfigs,
  ...jestConfigs,
  ...playwrightConfigs
]

/**
 * What the detection reads: `package.json` (parsed, or undefined when
 * absent) and the set of watched files and source directories that exist.
 *
 * @category models
 * @since 0.1.0
 */
export interface DetectionInput {
  readonly packageJson: unknown
  readonly exists: (path: string) => boolean
}

const namesOf = (value: unknown): ReadonlyArray<string> => (Predicate.isObject(value) ? Object.keys(value) : [])

/**
 * The detection itself, a pure function of what is on disk: framework from
 * the dependencies (meta-frameworks first: Next.js before React, Nuxt before
 * Vue, SvelteKit before Svelte), the package manager from the lockfile (then
 * `packageManager` in package.json, then npm), the linter and the test runner
 * from their configuration files or dependencies, the source directory.
 *
 * **Example**
 *
 * ```ts
 * import { detect } from "./capabilities/fe/project.ts"
 *
 * const files = new Set(["package.json", "pnpm-lock.yaml", "tsconfig.json", "src"])
 * const info = detect({
 *   packageJson: { name: "web", dependencies: { react: "19.0.0" }, devDependencies: { vitest: "4.0.0" } },
 *   exists: (path) => files.has(path)
 * })
 * info.framework // => "react"
 * info.packageManager // => "pnpm"
 * info.testRunner // => "vitest"
 * ```
 *
 * @category detection
 * @since 0.1.0
 */
export const detect = (input: DetectionInput): ProjectInfo => {
  const pkg = Predicate.isObject(input.packageJson) ? input.packageJson : {}
  const dependencies = [
    ...new Set([
      ...namesOf(pkg.dependencies),
      ...namesOf(pkg.devDependencies),
      ...namesOf(pkg.peerDependencies),
      ...namesOf(pkg.optionalDependencies)
    ])
  ].sort()
  const has = (name: string) => dependencies.includes(name)
  const any = (files: ReadonlyArray<string>) => files.some(input.exists)

  const framework: ProjectInfo["framework"] = has("next")
    ? "next"
    : has("nuxt")
      ? "nuxt"
      : has("@sveltejs/kit")
        ? "sveltekit"
        : has("astro")
          ? "astro"
          : has("react")
            ? "react"
            : has("vue")
              ? "vue"
              : has("svelte")
                ? "svelte"
                : "none"

  const lock = lockfiles.find((entry) => input.exists(entry.file))
  const declared = typeof pkg.packageManager === "string" ? pkg.packageManager.split("@")[0] : undefined
  const packageManager: ProjectInfo["packageManager"] =
    lock?.manager ??
    (declared === "pnpm" || declared === "yarn" || declared === "bun" || declared === "npm" ? declared : "npm")

  const linter: ProjectInfo["linter"] = any(eslintConfigs)
    ? "eslint"
    : any(biomeConfigs)
      ? "biome"
      : has("eslint")
        ? "eslint"
        : has("@biomejs/biome")
          ? "biome"
          : "none"

  const testRunner: ProjectInfo["testRunner"] =
    has("vitest") || configExtensions.some((ext) => input.exists(`vitest.config.${ext}`))
      ? "vitest"
      : has("jest") || any(jestConfigs) || Predicate.isObject(pkg.jest)
        ? "jest"
        : has("@playwright/test") || any(playwrightConfigs)
          ? "playwright"
          : "none"

  return {
    name: typeof pkg.name === "string" ? pkg.name : null,
    framework,
    packageManager,
    lockfile: lock?.file ?? null,
    tsconfig: tsconfigs.find(input.exists) ?? null,
    linter,
    testRunner,
    sourceDir: sourceDirs.find(input.exists) ?? ".",
    dependencies
  }
}

/**
 * The paths `detect` asks `exists` about: the watched files and the
 * candidate source directories.
 *
 * @category constants
 * @since 0.1.0
 */
export const probedPaths: ReadonlyArray<string> = [...watchedFiles, ...sourceDirs]

/**
 * The command that installs one package as a development dependency with
 * the project's package manager (`npm install -D x`, `pnpm add -D x`…), or
 * as a dependency when `dev` is false.
 *
 * **Example**
 *
 * ```ts
 * import { installCommand } from "./capabilities/fe/project.ts"
 *
 * installCommand("pnpm", "lodash", false) // => "pnpm add lodash"
 * installCommand("npm", "@types/node", true) // => "npm install -D @types/node"
 * ```
 *
 * @category commands
 * @since 0.1.0
 */
export const installCommand = (manager: ProjectInfo["packageManager"], name: string, dev: boolean): string =>
  manager === "npm" ? `npm install ${dev ? "-D " : ""}${name}` : `${manager} add ${dev ? "-D " : ""}${name}`
