/**
 * The TypeScript declarations of code mode: each JSON Schema feature's
 * type, the limits a hostile schema meets, comment and name escaping, the
 * layout of the `.d.ts` (sorted, `args?` when nothing is required, the
 * result type with and without an output schema), and — with the
 * TypeScript compiler — that the declarations compile and type a usage
 * snippet, rejecting wrong calls.
 */
import { execFile } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { type BindingTool, declarations, limits, typeOfSchema } from "../capabilities/code/bindings.ts"

const tool = (namespace: string, name: string, extra: Partial<BindingTool> = {}): BindingTool => ({
  namespace,
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object", properties: {} },
  ...extra
})

// One-line rendering of a type, for compact assertions on object types.
const flat = (schema: unknown, readonly = false): string =>
  typeOfSchema(schema, { readonly })
    .split("\n")
    .map((line) => line.trim())
    .join(" ")

describe("typeOfSchema: JSON Schema → TypeScript", () => {
  it("maps the primitive types, integer as number", () => {
    assert.strictEqual(typeOfSchema({ type: "string" }), "string")
    assert.strictEqual(typeOfSchema({ type: "number" }), "number")
    assert.strictEqual(typeOfSchema({ type: "integer", minimum: 0 }), "number")
    assert.strictEqual(typeOfSchema({ type: "boolean" }), "boolean")
    assert.strictEqual(typeOfSchema({ type: "null" }), "null")
  })

  it("makes a type array a union, written once per distinct type", () => {
    assert.strictEqual(typeOfSchema({ type: ["string", "null"] }), "string | null")
    assert.strictEqual(typeOfSchema({ type: ["integer", "number", "boolean"] }), "number | boolean")
    assert.strictEqual(typeOfSchema({ type: ["string", "wat"] }), "unknown")
  })

  it("makes enum a union of literals, and const a literal (objects and arrays structurally)", () => {
    assert.strictEqual(typeOfSchema({ type: "string", enum: ["a", 'b"c', "d\\e"] }), '"a" | "b\\"c" | "d\\\\e"')
    assert.strictEqual(typeOfSchema({ enum: [1, -2.5, true, null] }), "1 | -2.5 | true | null")
    assert.strictEqual(typeOfSchema({ const: "fixed" }), '"fixed"')
    assert.strictEqual(typeOfSchema({ const: 0 }), "0")
    assert.strictEqual(flat({ const: { kind: "x", at: [1, 2] } }), '{ kind: "x" at: [1, 2] }')
    assert.strictEqual(
      flat({ const: { kind: "x", at: [1] } }, true),
      '{ readonly kind: "x" readonly at: readonly [1] }'
    )
    assert.strictEqual(typeOfSchema({ type: "array", items: { const: -1 } }), "(-1)[]")
  })

  it("makes anyOf and oneOf unions, which any unconstrained member widens to unknown", () => {
    assert.strictEqual(typeOfSchema({ anyOf: [{ type: "string" }, { type: "number" }] }), "string | number")
    assert.strictEqual(typeOfSchema({ oneOf: [{ const: "a" }, { const: "b" }, { const: "a" }] }), '"a" | "b"')
    assert.strictEqual(typeOfSchema({ anyOf: [{ type: "string" }, {}] }), "unknown")
    assert.strictEqual(typeOfSchema({ anyOf: [] }), "never")
  })

  it("makes allOf an intersection, parenthesizing unions and dropping unconstrained parts", () => {
    assert.strictEqual(
      flat({
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          { anyOf: [{ type: "object", properties: { b: { type: "number" } } }, { type: "null" }] },
          { description: "just a note" }
        ]
      }),
      "{ a: string } & ({ b?: number } | null)"
    )
    assert.strictEqual(typeOfSchema({ allOf: [{ description: "first" }, { type: "string" }, true] }), "string")
    assert.strictEqual(typeOfSchema({ type: "string", allOf: [false] }), "never")
  })

  it("intersects type keywords with the combinators next to them", () => {
    assert.strictEqual(
      flat({
        type: "object",
        properties: { a: { type: "string" }, b: { type: "string" } },
        anyOf: [{ required: ["a"] }, { required: ["b"] }]
      }),
      "{ a?: string b?: string }"
    )
  })

  it("resolves $ref to $defs, definitions and other local pointers inline", () => {
    const schema = {
      type: "object",
      properties: {
        a: { $ref: "#/$defs/Point" },
        b: { $ref: "#/definitions/Kind" },
        c: { $ref: "#/properties/a" },
        "d/e": { type: "boolean" },
        f: { $ref: "#/properties/d~1e" }
      },
      required: ["a", "b", "c", "d/e", "f"],
      $defs: {
        Point: {
          description: "A point.",
          type: "object",
          properties: { x: { type: "number" }, y: { type: "number" } },
          required: ["x", "y"]
        }
      },
      definitions: { Kind: { enum: ["p", "q"] } }
    }
    assert.strictEqual(
      flat(schema),
      '{ /** A point. */ a: { x: number y: number } b: "p" | "q" c: { x: number y: number } "d/e": boolean f: boolean }'
    )
  })

  it("makes a $ref it cannot resolve unknown, and follows own keys only", () => {
    assert.strictEqual(typeOfSchema({ $ref: "#/$defs/Missing" }), "unknown")
    assert.strictEqual(typeOfSchema({ $ref: "https://example.com/schema.json" }), "unknown")
    assert.strictEqual(typeOfSchema({ $ref: "#/$defs/constructor", $defs: {} }), "unknown")
    assert.strictEqual(typeOfSchema({ $ref: "#/$defs/%E0%A4%A", $defs: {} }), "unknown")
    assert.strictEqual(typeOfSchema({ $ref: "#/$defs/A", $defs: { A: { $ref: "#/$defs/A" } } }), "unknown")
  })

  it("expands a recursive $ref a bounded number of times, then unknown", () => {
    const tree = {
      $ref: "#/$defs/Node",
      $defs: {
        Node: {
          type: "object",
          properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
          required: ["value", "children"]
        }
      }
    }
    assert.strictEqual(limits.maxRefExpansions, 2)
    assert.strictEqual(
      flat(tree),
      "{ value: string children: { value: string children: unknown[] }[] }",
      "the root expansion, one more inside it, then unknown"
    )
    const self = { type: "object", properties: { next: { $ref: "#" } } }
    assert.strictEqual(flat(self), "{ next?: { next?: { next?: unknown } } }")
  })

  it("adds null for OpenAPI's nullable: true", () => {
    assert.strictEqual(typeOfSchema({ type: "string", nullable: true }), "string | null")
    assert.strictEqual(typeOfSchema({ type: "string", nullable: false }), "string")
    assert.strictEqual(typeOfSchema({ nullable: true }), "unknown")
  })

  it("makes an empty, unknown or non-object schema unknown, and false never", () => {
    assert.strictEqual(typeOfSchema({}), "unknown")
    assert.strictEqual(typeOfSchema(true), "unknown")
    assert.strictEqual(typeOfSchema(false), "never")
    assert.strictEqual(typeOfSchema(null), "unknown")
    assert.strictEqual(typeOfSchema([{ type: "string" }]), "unknown")
    assert.strictEqual(typeOfSchema({ type: "string", format: "uri", not: { const: "" } }), "string")
  })

  it("makes properties required or optional, readonly on request, indented from the given indent", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "array", items: { type: "number" } } },
      required: ["a"]
    }
    assert.strictEqual(typeOfSchema(schema), "{\n  a: string\n  b?: number[]\n}")
    assert.strictEqual(
      typeOfSchema(schema, { readonly: true, indent: "    " }),
      "{\n      readonly a: string\n      readonly b?: readonly number[]\n    }"
    )
  })

  it("reads additionalProperties: false as closed, a schema as an index signature, absent as open when empty", () => {
    assert.strictEqual(
      flat({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false }),
      "{ a?: string }"
    )
    assert.strictEqual(
      flat({ type: "object", properties: { a: { type: "string" } }, additionalProperties: true }),
      "{ a?: string }"
    )
    assert.strictEqual(typeOfSchema({ type: "object" }), "{ [key: string]: unknown }")
    assert.strictEqual(typeOfSchema({ type: "object", additionalProperties: true }), "{ [key: string]: unknown }")
    assert.strictEqual(typeOfSchema({ type: "object", additionalProperties: false }), "{ [key: string]: never }")
    assert.strictEqual(typeOfSchema({ additionalProperties: { type: "number" } }), "{ [key: string]: number }")
    assert.strictEqual(
      typeOfSchema({ type: "object", additionalProperties: { type: "number" } }, { readonly: true }),
      "{ readonly [key: string]: number }"
    )
    assert.strictEqual(
      typeOfSchema({ type: "object", patternProperties: { "^x-": { type: "string" }, "^n-": { type: "number" } } }),
      "{ [key: string]: string | number }"
    )
  })

  it("widens an index signature by the declared properties' types so that they fit it", () => {
    assert.strictEqual(
      flat({
        type: "object",
        properties: { name: { type: "string" }, size: { type: "integer" } },
        required: ["name"],
        additionalProperties: { type: "boolean" }
      }),
      "{ name: string size?: number [key: string]: boolean | string | number | undefined }"
    )
    assert.strictEqual(
      flat({ type: "object", required: ["id"], additionalProperties: { type: "string" } }),
      "{ id: string [key: string]: string }",
      "a required name without a property schema takes additionalProperties' type"
    )
  })

  it("makes arrays of items, parenthesizing unions and readonly arrays, unknown[] without items", () => {
    assert.strictEqual(typeOfSchema({ type: "array", items: { type: "string" } }), "string[]")
    assert.strictEqual(typeOfSchema({ type: "array", items: { type: ["string", "null"] } }), "(string | null)[]")
    assert.strictEqual(typeOfSchema({ type: "array" }), "unknown[]")
    assert.strictEqual(typeOfSchema({ items: { type: "boolean" } }), "boolean[]")
    assert.strictEqual(typeOfSchema({ type: "array", items: false }), "[]")
    assert.strictEqual(
      typeOfSchema({ type: "array", items: { type: "array", items: { enum: ["a", "b"] } } }, { readonly: true }),
      'readonly (readonly ("a" | "b")[])[]'
    )
  })

  it("makes tuples of prefixItems (2020-12) and of items arrays (draft-07), with optional and rest elements", () => {
    const pair = { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] }
    assert.strictEqual(typeOfSchema({ ...pair, minItems: 2, maxItems: 2 }), "[string, number]")
    assert.strictEqual(typeOfSchema({ ...pair, minItems: 1, maxItems: 2 }), "[string, number?]")
    assert.strictEqual(typeOfSchema({ ...pair, minItems: 2 }), "[string, number, ...unknown[]]")
    assert.strictEqual(typeOfSchema({ ...pair, minItems: 2, items: false }), "[string, number]")
    assert.strictEqual(
      typeOfSchema({ ...pair, minItems: 2, items: { type: "boolean" } }),
      "[string, number, ...boolean[]]"
    )
    assert.strictEqual(
      typeOfSchema({ type: "array", items: [{ type: ["string", "null"] }], additionalItems: false }),
      "[(string | null)?]"
    )
    assert.strictEqual(
      typeOfSchema(
        { type: "array", items: [{ type: "string" }], minItems: 1, additionalItems: { type: "number" } },
        { readonly: true }
      ),
      "readonly [string, ...number[]]"
    )
  })

  it("puts property descriptions in doc comments, one line or several, with @deprecated", () => {
    assert.strictEqual(
      typeOfSchema({
        type: "object",
        properties: {
          path: { type: "string", description: "The file.  " },
          mode: { type: "string", description: "How to open it:\r\n\nread or write.\n\n" },
          old: { type: "boolean", deprecated: true }
        }
      }),
      [
        "{",
        "  /** The file. */",
        "  path?: string",
        "  /**",
        "   * How to open it:",
        "   *",
        "   * read or write.",
        "   */",
        "  mode?: string",
        "  /** @deprecated */",
        "  old?: boolean",
        "}"
      ].join("\n")
    )
  })

  it("quotes property names that are not identifiers, so a name cannot inject code", () => {
    const type = typeOfSchema({
      type: "object",
      properties: {
        "content-type": { type: "string" },
        "a\nb": { type: "string" },
        '"; declare const pwned: 1; "': { type: "string" },
        "x: string }; declare const y: {": { type: "string" },
        $ok_1: { type: "string" },
        "1st": { type: "string" },
        "": { type: "string" }
      }
    })
    assert.strictEqual(
      type,
      [
        "{",
        '  "content-type"?: string',
        '  "a\\nb"?: string',
        '  "\\"; declare const pwned: 1; \\""?: string',
        '  "x: string }; declare const y: {"?: string',
        "  $ok_1?: string",
        '  "1st"?: string',
        '  ""?: string',
        "}"
      ].join("\n")
    )
  })

  it("escapes */ and control characters in descriptions, so a comment cannot be closed early", () => {
    const type = typeOfSchema({
      type: "object",
      properties: {
        a: { type: "string", description: "Ends here */ declare const pwned: 1; /*" },
        b: { type: "string", description: "**/ and *\u2028/ and \u0000\u001b[31m" }
      }
    })
    assert.include(type, "/** Ends here *\\/ declare const pwned: 1; /* */")
    assert.include(type, "   * **\\/ and *\n   * / and   [31m\n")
    const comments = type.match(/\/\*\*[\s\S]*?\*\//g) ?? []
    assert.strictEqual(comments.length, 2, "each description stays one comment")
  })

  it("stops at the depth limit with unknown", () => {
    let schema: object = { type: "string" }
    for (let level = 0; level < 20; level++) schema = { type: "object", properties: { a: schema }, required: ["a"] }
    const type = flat(schema)
    assert.strictEqual(type.match(/a: /g)?.length, limits.maxDepth)
    assert.include(type, "a: unknown")
    let list: object = { type: "string" }
    for (let level = 0; level < 20; level++) list = { type: "array", items: list }
    assert.strictEqual(typeOfSchema(list), `unknown${"[]".repeat(limits.maxDepth)}`)
  })

  it("survives deeply nested combinators and $ref chains without overflowing the stack", () => {
    let schema: object = { type: "string" }
    for (let level = 0; level < 100_000; level++) schema = { anyOf: [schema] }
    assert.strictEqual(typeOfSchema(schema), "unknown")
    const defs: Record<string, object> = {}
    for (let index = 0; index < 10_000; index++) defs[`d${index}`] = { $ref: `#/$defs/d${index + 1}` }
    assert.strictEqual(typeOfSchema({ $ref: "#/$defs/d0", $defs: defs }), "unknown")
  })

  it("keeps a hostile schema within its size budget: huge enums, many properties, exponential $refs", () => {
    const started = Date.now()
    const values = Array.from({ length: 200_000 }, (_, index) => `value-${index}`)
    assert.strictEqual(typeOfSchema({ enum: values }), "unknown")

    const properties: Record<string, object> = {}
    for (let index = 0; index < 50_000; index++) {
      properties[`p${index}`] = { type: "string", description: "x".repeat(2_000) }
    }
    const wide = typeOfSchema({ type: "object", properties, required: Object.keys(properties) })
    assert.isBelow(wide.length, 3 * limits.budget)
    assert.include(wide, "[key: string]: unknown", "the properties left out can still be passed")
    assert.include(wide, "x".repeat(limits.maxPropertyDescription) + "…")

    const defs: Record<string, object> = {}
    for (let index = 0; index < 30; index++) {
      const next = { $ref: `#/$defs/d${index + 1}` }
      defs[`d${index}`] = {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 10 }, (_, key) => [`k${key}`, next]))
      }
    }
    const exponential = typeOfSchema({ $ref: "#/$defs/d0", $defs: defs })
    assert.isBelow(exponential.length, 4 * limits.budget)

    // Long lists reached again and again through $refs: each visit must not cost the whole list.
    const many = (item: unknown) => Array.from({ length: 100_000 }, () => item)
    const again = { $ref: "#/$defs/A" }
    for (const A of [
      { anyOf: many(again) },
      { allOf: many(again) },
      { allOf: [...many(1), again] },
      { type: "object", properties: { a: again }, required: many("a") },
      {
        type: "object",
        properties: { a: again },
        patternProperties: Object.fromEntries(many(again).map((item, index) => [`^${index}`, item]))
      },
      { enum: [...many(null), again] }
    ]) {
      assert.isBelow(typeOfSchema({ $ref: "#/$defs/A", $defs: { A } }).length, 4 * limits.budget)
    }
    assert.isBelow(Date.now() - started, 5_000)
  })
})

describe("declarations", () => {
  const verify = tool("fe", "verify", {
    description: "Typechecks, lints and tests the project.",
    inputSchema: {
      type: "object",
      properties: { path: { type: "string", description: "The project directory." } },
      additionalProperties: false
    },
    outputSchema: {
      type: "object",
      properties: { ok: { type: "boolean" } },
      required: ["ok"]
    }
  })

  it("writes the preamble, mcp by namespace and tool, and input", () => {
    assert.strictEqual(
      declarations([verify]),
      [
        "/** Content blocks of a tool result without structured output. */",
        'type ContentBlock = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string } | ' +
          '{ type: "audio"; data: string; mimeType: string } | ' +
          '{ type: "resource"; resource: { uri: string; mimeType?: string; text?: string; blob?: string } } | ' +
          '{ type: "resource_link"; uri: string; name: string; mimeType?: string; description?: string }',
        "/** Thrown (rejected) by a call whose tool answered with an error: `message` is the tool's error text; " +
          "`code` and `suggestion` when the server gave them. */",
        "interface ToolError extends Error { readonly code?: string; readonly suggestion?: string }",
        "/** The server's tools, by namespace: `await mcp.<namespace>.<tool>(args)`; a tool's error rejects with a " +
          "ToolError. */",
        "declare const mcp: {",
        "  readonly fe: {",
        "    /**",
        "     * Typechecks, lints and tests the project.",
        "     */",
        "    verify(args?: {",
        "      /** The project directory. */",
        "      readonly path?: string",
        "    }): Promise<{",
        "      ok: boolean",
        "    }>",
        "  }",
        "}",
        "declare const input: unknown",
        ""
      ].join("\n")
    )
  })

  it("declares an empty mcp without tools", () => {
    const text = declarations([])
    assert.include(text, "declare const mcp: {}\ndeclare const input: unknown\n")
  })

  it("sorts namespaces and tools, keeps the first of a repeated name, and is independent of input order", () => {
    const tools = [
      tool("workspace", "write"),
      tool("fe", "verify"),
      tool("workspace", "read"),
      tool("exec", "run"),
      tool("workspace", "Zed"),
      tool("fe", "doctor"),
      tool("fe", "verify", { description: "A second verify." })
    ]
    const text = declarations(tools)
    const order = [...text.matchAll(/^ {2}readonly (\w+)|^ {4}(\w+)\(/gm)].map((match) => match[1] ?? match[2])
    assert.deepStrictEqual(order, ["exec", "run", "fe", "doctor", "verify", "workspace", "Zed", "read", "write"])
    assert.notInclude(text, "A second verify.")
    assert.strictEqual(declarations([...tools.slice(0, 6)].reverse().concat(tools[6]!)), text)
  })

  it("makes args optional when nothing is required (also through allOf and a root $ref)", () => {
    const required = { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
    const text = declarations([
      tool("a", "none"),
      tool("a", "some", { inputSchema: required }),
      tool("a", "viaAllOf", { inputSchema: { allOf: [{ type: "object" }, required] } }),
      tool("a", "viaRef", { inputSchema: { $ref: "#/$defs/In", $defs: { In: required } } }),
      tool("a", "emptyRequired", { inputSchema: { type: "object", required: [] } })
    ])
    assert.include(text, "    none(args?: {")
    assert.include(text, "    some(args: {")
    assert.include(text, "    viaAllOf(args: {")
    assert.include(text, "    viaRef(args: {")
    assert.include(text, "    emptyRequired(args?: { readonly [key: string]: unknown }): ")
  })

  it("resolves a result without an output schema to its text or its content blocks", () => {
    const text = declarations([
      tool("system", "time", { description: "", inputSchema: { type: "object", additionalProperties: false } })
    ])
    assert.include(
      text,
      "  readonly system: {\n    time(args?: { readonly [key: string]: never }): Promise<string | ContentBlock[]>\n"
    )
  })

  it("says in the doc comment when a tool needs the user's confirmation", () => {
    const text = declarations([
      tool("workspace", "write", { destructive: true }),
      tool("workspace", "wipe", { description: "", destructive: true })
    ])
    const note =
      "Destructive: needs the user's confirmation. Pass `confirm: true` only after the user agreed to this exact call."
    assert.include(text, `    /**\n     * The write tool.\n     *\n     * ${note}\n     */\n    write(`)
    assert.include(text, `    /**\n     * ${note}\n     */\n    wipe(`)
  })

  it("quotes tool and namespace names that are not identifiers, and new", () => {
    const text = declarations([
      tool("fe", "get-x"),
      tool("fe", "files.list"),
      tool("fe", "new"),
      tool("fe", "constructor"),
      tool("learned-ns", "ok")
    ])
    assert.include(text, '    "get-x"(args?: ')
    assert.include(text, '    "files.list"(args?: ')
    assert.include(text, '    "new"(args?: ')
    assert.include(text, "    constructor(args?: ")
    assert.include(text, '  readonly "learned-ns": {')
  })

  it("keeps a tool description inside its comment, whatever it holds", () => {
    const text = declarations([
      tool("fe", "evil", { description: "Nice.*/\n}\ndeclare const pwned: 1\ndeclare const mcp2: {/**" })
    ])
    assert.include(
      text,
      "     * Nice.*\\/\n     * }\n     * declare const pwned: 1\n     * declare const mcp2: {/**\n     */"
    )
    const long = declarations([tool("fe", "long", { description: "y".repeat(10_000) })])
    assert.include(long, `     * ${"y".repeat(limits.maxToolDescription)}…\n`)
  })
})

// -- with the TypeScript compiler ------------------------------------------------

const run = promisify(execFile)
const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc")

// Runs tsc on a project; its diagnostics, one a line.
const typecheck = async (project: string): Promise<string> => {
  try {
    const { stdout } = await run(process.execPath, [tsc, "-p", project, "--pretty", "false"], {
      cwd: dirname(project),
      timeout: 20_000
    })
    return stdout
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string }
    if (failed.stdout === undefined) throw error
    return `${failed.stdout}${failed.stderr ?? ""}`
  }
}

// A real-looking tool set: the shapes the default capabilities' schemas have, and the schema features in one tool.
const realTools: ReadonlyArray<BindingTool> = [
  tool("fe", "verify", {
    description: "Typechecks, lints and tests the project.",
    inputSchema: {
      type: "object",
      properties: {
        files: { type: "array", items: { type: "string", minLength: 1 }, description: "Files to check." },
        steps: { type: "array", items: { type: "string", enum: ["typecheck", "lint", "test"] } },
        timeoutMs: { type: "integer", minimum: 1000 }
      },
      additionalProperties: false
    },
    outputSchema: {
      type: "object",
      properties: {
        ok: { type: "boolean", description: "True when every step passed." },
        problems: {
          type: "array",
          items: {
            type: "object",
            properties: {
              file: { type: "string" },
              line: { type: "integer" },
              severity: { enum: ["error", "warning"] },
              test: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
            },
            required: ["file", "line", "severity"],
            additionalProperties: true
          }
        }
      },
      required: ["ok", "problems"]
    }
  }),
  tool("workspace", "write", {
    description: "Writes a file.",
    destructive: true,
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string" },
        content: { type: "string" },
        confirm: { type: "boolean", description: "Only after the user agreed." }
      },
      required: ["path", "content"],
      additionalProperties: false
    },
    outputSchema: {
      type: "object",
      properties: { bytesWritten: { type: "integer" }, created: { type: "boolean" } },
      required: ["bytesWritten", "created"]
    }
  }),
  tool("system", "time", {
    description: "The current time.",
    inputSchema: { type: "object", additionalProperties: false }
  }),
  tool("learned", "get-x", { description: "A learned tool */ with a hostile description." }),
  tool("learned", "shapes", {
    description: "Every schema feature at once.",
    inputSchema: {
      type: "object",
      properties: {
        "content-type": { type: "string" },
        pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }], minItems: 2, maxItems: 2 },
        point: { $ref: "#/$defs/Point" },
        tags: { type: "object", additionalProperties: { type: "string" } },
        mode: { anyOf: [{ const: "fast" }, { const: -1 }] },
        maybe: { type: "string", nullable: true },
        both: { allOf: [{ $ref: "#/$defs/Point" }, { type: "object", properties: { z: { type: "number" } } }] },
        tree: { $ref: "#/$defs/Node" },
        lists: { type: "array", items: { type: "array", items: { const: -1 } } }
      },
      required: ["point"],
      $defs: {
        Point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] },
        Node: {
          type: "object",
          properties: { value: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
          required: ["value"]
        }
      }
    },
    outputSchema: {
      type: "object",
      properties: {
        size: { type: "integer" },
        extra: { type: ["string", "null"] }
      },
      required: ["size"],
      additionalProperties: { type: "boolean" }
    }
  })
]

const usage = `export {}
async function main(): Promise<void> {
  const r = await mcp.fe.verify({ files: ["a.ts"], steps: ["lint"] })
  r.ok satisfies boolean
  const first = r.problems[0]
  if (first !== undefined) {
    first.severity satisfies "error" | "warning"
    first.line satisfies number
    first.test?.name satisfies string | undefined
  }
  await mcp.fe.verify()
  await mcp.fe.verify({})
  const steps: ReadonlyArray<"typecheck" | "lint" | "test"> = ["test"]
  await mcp.fe.verify({ steps })
  const written = await mcp.workspace.write({ path: "a.txt", content: "hi", confirm: true })
  written.bytesWritten satisfies number
  const time = await mcp.system.time()
  if (typeof time === "string") time satisfies string
  else for (const block of time) if (block.type === "text") block.text satisfies string
  const x = await mcp.learned["get-x"]({ anything: 1 })
  x satisfies string | ContentBlock[]
  const s = await mcp.learned.shapes({
    "content-type": "text/plain",
    pair: ["a", 1],
    point: { x: 1, y: 2 },
    tags: { a: "b" },
    mode: -1,
    maybe: null,
    both: { x: 1, y: 2, z: 3 },
    tree: { value: "root", children: [{ value: "leaf", children: [] }] },
    lists: [[-1, -1]]
  })
  s.size satisfies number
  s.extra satisfies string | null | undefined
  s["other"] satisfies boolean | string | number | null | undefined
  try {
    await mcp.fe.verify()
  } catch (error) {
    const failure = error as ToolError
    failure.message satisfies string
    failure.code satisfies string | undefined
  }
  input satisfies unknown
}
void main
`

// The default capabilities' tools (surface.json), as a server would list them.
const surfaceUsage = `export {}
async function main(): Promise<void> {
  const verified = await mcp.fe.verify({ steps: ["typecheck"] })
  verified.ok satisfies boolean
  const written = await mcp.workspace.write({ path: "a.txt", content: "hi", confirm: true })
  written.created satisfies boolean
  const run = await mcp.exec.run({ command: "npm", args: ["test"] })
  run.exitCode satisfies number | null
}
void main
`

// Each line marked "// error" must have an error, and no other line may.
const wrong = `export {}
async function main(): Promise<void> {
  await mcp.fe.verify({ files: "a.ts" }) // error
  await mcp.fe.verify({ steps: ["deploy"] }) // error
  await mcp.fe.verify({ nope: true }) // error
  await mcp.workspace.write() // error
  await mcp.workspace.write({ path: "a.txt" }) // error
  await mcp.workspace.write({ path: "a.txt", content: "hi", confirm: "yes" }) // error
  const r = await mcp.fe.verify()
  r.ok satisfies string // error
  r.missing // error
  await mcp.fe.nope() // error
  await mcp.system.time({ at: 1 }) // error
  await mcp.learned.shapes({}) // error
  await mcp.learned.shapes({ point: { x: 1 } }) // error
  await mcp.learned.shapes({ point: { x: 1, y: 2 }, pair: ["a"] }) // error
  await mcp.learned.shapes({ point: { x: 1, y: 2 }, mode: "slow" }) // error
  const time = await mcp.system.time()
  time satisfies string // error
  input.anything // error
}
void main
`

describe("the declarations with the TypeScript compiler", () => {
  it("compile, type a usage snippet, and reject wrong calls (exactOptionalPropertyTypes on and off)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "code-bindings-"))
    try {
      const surface = JSON.parse(readFileSync(join(import.meta.dirname, "..", "surface.json"), "utf8")) as {
        tools: ReadonlyArray<{
          name: string
          description: string
          inputSchema: {}
          outputSchema?: {}
          annotations?: { destructiveHint?: boolean }
        }>
      }
      const surfaceTools = surface.tools.map((entry) => ({
        namespace: entry.name.slice(0, entry.name.indexOf("_")),
        name: entry.name.slice(entry.name.indexOf("_") + 1),
        description: entry.description,
        inputSchema: entry.inputSchema,
        outputSchema: entry.outputSchema,
        destructive: entry.annotations?.destructiveHint
      }))
      writeFileSync(join(dir, "bindings.d.ts"), declarations(realTools))
      writeFileSync(join(dir, "usage.ts"), usage)
      writeFileSync(join(dir, "wrong.ts"), wrong)
      mkdirSync(join(dir, "surface"))
      writeFileSync(join(dir, "surface", "bindings.d.ts"), declarations(surfaceTools))
      writeFileSync(join(dir, "surface", "usage.ts"), surfaceUsage)
      const compilerOptions = {
        target: "ES2022",
        lib: ["ES2022"],
        module: "ESNext",
        moduleResolution: "Bundler",
        types: [],
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        skipDefaultLibCheck: true,
        noUncheckedIndexedAccess: true
      }
      for (const exactOptionalPropertyTypes of [true, false]) {
        writeFileSync(
          join(dir, `tsconfig.${exactOptionalPropertyTypes}.json`),
          JSON.stringify({
            compilerOptions: { ...compilerOptions, exactOptionalPropertyTypes },
            files: ["bindings.d.ts", "usage.ts", "wrong.ts"]
          })
        )
      }
      writeFileSync(
        join(dir, "surface", "tsconfig.json"),
        JSON.stringify({
          compilerOptions: { ...compilerOptions, exactOptionalPropertyTypes: true },
          files: ["bindings.d.ts", "usage.ts"]
        })
      )
      const [surfaceOutput, ...outputs] = await Promise.all([
        typecheck(join(dir, "surface", "tsconfig.json")),
        ...[true, false].map((exact) => typecheck(join(dir, `tsconfig.${exact}.json`)))
      ])
      assert.strictEqual(surfaceOutput, "", "the default capabilities' declarations compile")
      const expected = wrong.split("\n").flatMap((line, index) => (line.endsWith("// error") ? [index + 1] : []))
      for (const output of outputs) {
        const diagnostics = output.split("\n").filter((line) => /^\S.*\(\d+,\d+\): error TS\d+/.test(line))
        const elsewhere = diagnostics.filter((line) => !line.startsWith("wrong.ts("))
        assert.deepStrictEqual(elsewhere, [], `only wrong.ts has errors:\n${output}`)
        const lines = [...new Set(diagnostics.map((line) => Number(/^wrong\.ts\((\d+),/.exec(line)![1])))]
        assert.deepStrictEqual(lines, expected, output)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
