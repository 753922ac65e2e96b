/**
 * Project detection for the `fe` tools: framework, package manager,
 * tsconfig, lint tool, test runner and source directory, read from the
 * workspace's `package.json`, lockfiles and configuration files.
 *
 * @since 0.1.0
 */
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
