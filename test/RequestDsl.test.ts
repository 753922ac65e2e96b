/**
 * The request language: the text form, the JSON form, `$prev` references,
 * every error (its reason, its exact position, its message with the caret
 * excerpt), the limits, and printing ops back.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import {
  defaultLimits,
  format,
  formatValue,
  fromJson,
  type Limits,
  MissingField,
  type Op,
  parse,
  type Program,
  type Reason,
  RequestDslError,
  resolve,
  resolveArgs,
  type Value
} from "../src/RequestDsl.ts"

const ok = (text: string, limits?: Partial<Limits>): Program => {
  const result = parse(text, limits)
  if (Result.isFailure(result)) throw new Error(`expected ${JSON.stringify(text)} to parse:\n${result.failure.message}`)
  return result.success
}

const fails = (text: string, limits?: Partial<Limits>): RequestDslError => {
  const result = parse(text, limits)
  if (Result.isSuccess(result)) throw new Error(`expected ${JSON.stringify(text)} to fail`)
  return result.failure
}

// A line as the excerpt shows it: a tab as a space, another control character as its control picture (U+2400…).
const visible = (line: string): string =>
  Array.from(line, (c) => {
    const code = c.charCodeAt(0)
    return c === "\t" ? " " : code < 0x20 ? String.fromCharCode(0x2400 + code) : c
  }).join("")

// The error's reason, its position, and a message with `line:column` and the line with a caret under the column.
const assertError = (
  text: string,
  reason: Reason,
  line: number,
  column: number,
  limits?: Partial<Limits>
): RequestDslError => {
  const error = fails(text, limits)
  assert.strictEqual(error.reason, reason, error.message)
  assert.instanceOf(error, RequestDslError)
  assert.strictEqual(error._tag, "RequestDslError")
  assert.isUndefined(error.path)
  const lines = text.split("\n")
  const offset = lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0) + column - 1
  assert.deepStrictEqual(error.position, { offset, line, column })
  assert.include(error.message, `Invalid request at ${line}:${column}: `)
  const sourceLine = visible(lines[line - 1]!)
  if (sourceLine.length <= 70) assert.include(error.message, `\n  ${sourceLine}\n  ${" ".repeat(column - 1)}^`)
  return error
}

const okJson = (ops: unknown, mode?: unknown, limits?: Partial<Limits>): Program => {
  const result = fromJson(ops, mode, limits)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}

const failsJson = (ops: unknown, mode: unknown, reason: Reason, path: string, limits?: Partial<Limits>) => {
  const result = fromJson(ops, mode, limits)
  if (Result.isSuccess(result)) throw new Error("expected the JSON form to fail")
  assert.strictEqual(result.failure.reason, reason, result.failure.message)
  assert.strictEqual(result.failure.path, path)
  assert.isUndefined(result.failure.position)
  assert.include(result.failure.message, `Invalid request at ${path}: `)
  return result.failure
}

const lit = (value: null | boolean | number | string): Value => ({ _tag: "Literal", value })
const prev = (path: ReadonlyArray<string | number>, text: string): Value => ({
  _tag: "Prev",
  path,
  text,
  position: undefined
})

// An op's value with every position dropped, to compare with a literal tree.
const strip = (value: Value): Value => {
  switch (value._tag) {
    case "Literal":
      return value
    case "Prev":
      return { ...value, position: undefined }
    case "List":
      return { _tag: "List", items: value.items.map(strip) }
    case "Record":
      return { _tag: "Record", entries: value.entries.map(([k, v]) => [k, strip(v)] as const) }
  }
}
const argsOf = (op: Op) => op.args.map(([k, v]) => [k, strip(v)] as const)

describe("RequestDsl.parse: values", () => {
  it("one call with every kind of value", () => {
    const program = ok(
      `tool_x(s="a\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00", q='it\\'s "ok"', n=-12.5e-1, i=0, e=6.02E+23, t=true, f=false, z=null, ` +
        `l=[1, [2, []], {}], o={a: 1, "b c": 'x', nested: {d: [true]}})`
    )
    assert.strictEqual(program.ops.length, 1)
    const op = program.ops[0]!
    assert.strictEqual(op.verb, "tool_x")
    assert.deepStrictEqual(argsOf(op), [
      ["s", lit('a"b\\c/d\b\f\n\r\té😀')],
      ["q", lit(`it's "ok"`)],
      ["n", lit(-1.25)],
      ["i", lit(0)],
      ["e", lit(6.02e23)],
      ["t", lit(true)],
      ["f", lit(false)],
      ["z", lit(null)],
      [
        "l",
        {
          _tag: "List",
          items: [
            lit(1),
            { _tag: "List", items: [lit(2), { _tag: "List", items: [] }] },
            { _tag: "Record", entries: [] }
          ]
        }
      ],
      [
        "o",
        {
          _tag: "Record",
          entries: [
            ["a", lit(1)],
            ["b c", lit("x")],
            ["nested", { _tag: "Record", entries: [["d", { _tag: "List", items: [lit(true)] }]] }]
          ]
        }
      ]
    ])
  })

  it("trailing commas in calls, arrays and objects; whitespace and newlines anywhere between tokens", () => {
    const program = ok(`\n  a (\n\tx = [ 1 , 2 , ] ,\r\n  y = { k : 1 , } ,\n) ;\n`)
    assert.deepStrictEqual(argsOf(program.ops[0]!), [
      ["x", { _tag: "List", items: [lit(1), lit(2)] }],
      ["y", { _tag: "Record", entries: [["k", lit(1)]] }]
    ])
  })

  it("calls without arguments, verbs with dots and dashes, quoted argument names", () => {
    const program = ok(`system_time(); ns.tool-name_2(); a("x-y"=1, 'z w'=2)`)
    assert.deepStrictEqual(
      program.ops.map((op) => op.verb),
      ["system_time", "ns.tool-name_2", "a"]
    )
    assert.deepStrictEqual(program.ops[0]!.args, [])
    assert.deepStrictEqual(argsOf(program.ops[2]!), [
      ["x-y", lit(1)],
      ["z w", lit(2)]
    ])
  })

  it("strings may span lines; a string literal that reads $prev is just a string", () => {
    const program = ok(`a(text="line 1\nline 2", s="$prev")`)
    assert.deepStrictEqual(argsOf(program.ops[0]!), [
      ["text", lit("line 1\nline 2")],
      ["s", lit("$prev")]
    ])
  })

  it("numbers follow JSON: negatives, fractions, exponents, -0", () => {
    const values = ok(`a(a=-0, b=0.5, c=1e3, d=-2E-2, e=123456789012, f=1.7976931348623157e308)`).ops[0]!.args.map(
      ([, v]) => (v._tag === "Literal" ? v.value : undefined)
    )
    assert.deepStrictEqual(values, [-0, 0.5, 1000, -0.02, 123456789012, 1.7976931348623157e308])
    assert.isTrue(Object.is(values[0], -0))
  })
})

describe("RequestDsl.parse: pipelines", () => {
  it("a; b runs in parallel: two pipelines of one step each", () => {
    const program = ok(`a(); b()`)
    assert.deepStrictEqual(program.pipelines, [[0], [1]])
    assert.deepStrictEqual(
      program.ops.map((op) => [op.index, op.pipeline, op.step]),
      [
        [0, 0, 0],
        [1, 1, 0]
      ]
    )
  })

  it("a | b is a chain whose later step reads $prev", () => {
    const program = ok(`a() | b(x=$prev.f)`)
    assert.deepStrictEqual(program.pipelines, [[0, 1]])
    assert.deepStrictEqual(argsOf(program.ops[1]!), [["x", prev(["f"], "$prev.f")]])
    assert.strictEqual(program.ops[1]!.step, 1)
  })

  it("mixed: a | b(x=$prev); c() | d() | e(y=[$prev]); f();", () => {
    const program = ok(`a() | b(x=$prev); c() | d() | e(y=[$prev]); f();`)
    assert.deepStrictEqual(program.pipelines, [[0, 1], [2, 3, 4], [5]])
    assert.deepStrictEqual(
      program.ops.map((op) => `${op.index}:${op.verb}@${op.pipeline}.${op.step}`),
      ["0:a@0.0", "1:b@0.1", "2:c@1.0", "3:d@1.1", "4:e@1.2", "5:f@2.0"]
    )
    assert.isTrue(program.ops.every((op) => op.path === undefined))
  })

  it("$prev path forms: .name, .0, [0] and mixtures; text as written", () => {
    const program = ok(`a() | b(w=$prev, x=$prev[0], y=$prev.0, z=$prev.items[12].name_2.3, v=$prev.a.b)`)
    assert.deepStrictEqual(argsOf(program.ops[1]!), [
      ["w", prev([], "$prev")],
      ["x", prev([0], "$prev[0]")],
      ["y", prev([0], "$prev.0")],
      ["z", prev(["items", 12, "name_2", 3], "$prev.items[12].name_2.3")],
      ["v", prev(["a", "b"], "$prev.a.b")]
    ])
  })

  it("positions: line and column (1-based) and offset (0-based) of every verb and $prev, over several lines", () => {
    const text = `first(a=1)\n  | second(\n      b=$prev.x)\n;\n\tthird()`
    const program = ok(text)
    assert.deepStrictEqual(
      program.ops.map((op) => op.position),
      [
        { offset: 0, line: 1, column: 1 },
        { offset: 15, line: 2, column: 5 },
        { offset: 43, line: 5, column: 2 }
      ]
    )
    const ref = program.ops[1]!.args[0]![1]
    assert.deepStrictEqual(ref._tag === "Prev" ? ref.position : undefined, { offset: 31, line: 3, column: 9 })
    assert.strictEqual(text.slice(31, 36), "$prev")
  })
})

describe("RequestDsl.parse: errors", () => {
  it("empty: nothing or only whitespace", () => {
    for (const text of ["", "  \n\t\r\n "]) {
      const error = fails(text)
      assert.strictEqual(error.reason, "empty")
      assert.include(error.message, "empty")
    }
  })

  it("unterminated_string at the opening quote, with the message of the example", () => {
    const error = assertError(`workspace_read(path="src/a.ts, length=200)`, "unterminated_string", 1, 21)
    assert.strictEqual(
      error.message,
      `Invalid request at 1:21: unterminated string (it starts here and is never closed).\n` +
        `  workspace_read(path="src/a.ts, length=200)\n` +
        `                      ^`
    )
    assertError(`a(x='abc\\')`, "unterminated_string", 1, 5)
    assertError(`a(x=1)\n| b(y="abc\\`, "unterminated_string", 2, 7)
  })

  it("unexpected_character: control characters and characters of no token, outside strings and raw inside them", () => {
    assertError("a(x=1)\u0000", "unexpected_character", 1, 7)
    assertError("a(\u0001)", "unexpected_character", 1, 3)
    assertError(`a(x=@)`, "unexpected_character", 1, 5)
    assertError(`a(x=1) # comment`, "unexpected_character", 1, 8)
    assertError(`é()`, "unexpected_character", 1, 1)
    const inString = assertError(`a(x="a\u0007b")`, "unexpected_character", 1, 7)
    assert.include(inString.message, "\\u0007")
    assert.include(fails("a(\u0000)").message, "U+0000")
  })

  it("unexpected_token: separators at the start or twice, missing separators, bare words, positional arguments", () => {
    assertError(`; a()`, "unexpected_token", 1, 1)
    assertError(`| a()`, "unexpected_token", 1, 1)
    assertError(`a();; b()`, "unexpected_token", 1, 5)
    assertError(`a() || b()`, "unexpected_token", 1, 6)
    assertError(`a() | ; b()`, "unexpected_token", 1, 7)
    assertError(`a() b()`, "unexpected_token", 1, 5)
    assertError(`a(x=1 y=2)`, "unexpected_token", 1, 7)
    assertError(`a(path: "x")`, "unexpected_token", 1, 7)
    assertError(`a("x")`, "unexpected_token", 1, 6)
    assertError(`a(x=[1 2])`, "unexpected_token", 1, 8)
    assertError(`a(x={k 1})`, "unexpected_token", 1, 8)
    assertError(`a(x={k: 1 l: 2})`, "unexpected_token", 1, 11)
    assertError(`a(,)`, "unexpected_token", 1, 3)
    assertError(`a(x=1,,)`, "unexpected_token", 1, 7)
    assertError(`a x=1`, "unexpected_token", 1, 3)
    assertError(`1a()`, "unexpected_token", 1, 1)
    const bare = assertError(`a(path=src/a.ts)`, "unexpected_token", 1, 8)
    assert.include(bare.message, `strings must be quoted: "src/a.ts"`)
    const missing = assertError(`a() b()`, "unexpected_token", 1, 5)
    assert.include(missing.message, `expected ";" (another pipeline), "|"`)
    assert.include(missing.message, `found "b"`)
    const positional = fails(`a("x")`)
    assert.include(positional.message, "arguments are written name=value")
    const dashed = assertError(`a(file-name=1)`, "unexpected_token", 1, 7)
    assert.include(dashed.message, `"file-name"=value`)
  })

  it("unexpected_end: a missing ) or ], a trailing | or =, positioned just after the last token", () => {
    assertError(`a(x=1`, "unexpected_end", 1, 6)
    assertError(`a(x=1\n   \n`, "unexpected_end", 1, 6)
    assertError(`a(x=[1, 2`, "unexpected_end", 1, 10)
    assertError(`a(x={k: 1`, "unexpected_end", 1, 10)
    assertError(`a() |`, "unexpected_end", 1, 6)
    assertError(`a(x=`, "unexpected_end", 1, 5)
    assertError(`a`, "unexpected_end", 1, 2)
    const error = fails(`a(x=1`)
    assert.include(
      error.message,
      `expected "," or ")" after the value of the argument "x", found the end of the request`
    )
  })

  it("invalid_number: leading zeros or +, hex, a dot without digits, NaN, Infinity, overflow", () => {
    for (const literal of [
      "01",
      "+1",
      "0x1F",
      "1.",
      ".5",
      "1e",
      "1e+",
      "-",
      "--1",
      "1.2.3",
      "NaN",
      "Infinity",
      "-Infinity",
      "1abc"
    ]) {
      assertError(`a(x=${literal})`, "invalid_number", 1, 5)
    }
    const overflow = assertError(`a(x=1e400)`, "invalid_number", 1, 5)
    assert.include(overflow.message, "Infinity")
    assert.include(fails(`a(x=0x1F)`).message, `invalid number "0x1F"`)
  })

  it("invalid_escape at the backslash; \\' only in single-quoted strings", () => {
    assertError(`a(x="ab\\qc")`, "invalid_escape", 1, 8)
    assertError(`a(x="\\'")`, "invalid_escape", 1, 6)
    assertError(`a(x="\\u12G4")`, "invalid_escape", 1, 6)
    assertError(`a(x='\\x41')`, "invalid_escape", 1, 6)
    assert.include(fails(`a(x="ab\\qc")`).message, `invalid escape "\\q"`)
  })

  it("invalid_reference: $ without prev, and malformed $prev paths", () => {
    assertError(`a() | b(x=$foo)`, "invalid_reference", 1, 11)
    assertError(`a() | b(x=$previous)`, "invalid_reference", 1, 11)
    assertError(`a() | b(x=$)`, "invalid_reference", 1, 11)
    assertError(`a() | b(x=$prev..a)`, "invalid_reference", 1, 16)
    assertError(`a() | b(x=$prev.)`, "invalid_reference", 1, 16)
    assertError(`a() | b(x=$prev[a])`, "invalid_reference", 1, 16)
    assertError(`a() | b(x=$prev[1)`, "invalid_reference", 1, 18)
    assertError(`a() | b(x=$prev.0a)`, "invalid_reference", 1, 17)
    assert.include(fails(`a() | b(x=$foo)`).message, "the only reference is $prev")
  })

  it("duplicate_argument and duplicate_key at the second name", () => {
    const arg = assertError(`a(x=1, y=2, x=3)`, "duplicate_argument", 1, 13)
    assert.include(arg.message, `"x" is given twice`)
    assert.include(arg.message, "first at 1:3")
    assertError(`a(x=1, "x"=2)`, "duplicate_argument", 1, 8)
    const key = assertError(`a(o={a: 1, 'a': 2})`, "duplicate_key", 1, 12)
    assert.include(key.message, `"a" appears twice`)
    assertError(`a(o=[{a: 1}, {b: {c: 1, c: 2}}])`, "duplicate_key", 1, 25)
    ok(`a(o={a: 1}, p={a: 2}) | b(o={a: {a: 1}})`)
  })

  it("prev_in_first_step at the $prev, also nested, in every pipeline's first step", () => {
    const error = assertError(`a(x=$prev)`, "prev_in_first_step", 1, 5)
    assert.include(error.message, "no previous step")
    assert.include(error.message, `$prev only works after "|"`)
    assertError(`a(x=[1, {k: [$prev.a]}])`, "prev_in_first_step", 1, 14)
    assertError(`a() | b(x=$prev); c(y=$prev)`, "prev_in_first_step", 1, 23)
  })

  it("the excerpt of a long line is cut to about 60 characters around the spot, with the caret under it", () => {
    const text = `a(x="${"y".repeat(200)}", z=@)`
    const error = fails(text)
    assert.strictEqual(error.reason, "unexpected_character")
    assert.strictEqual(error.position?.column, 211)
    const [, excerpt, caret] = error.message.split("\n")
    assert.isBelow(excerpt!.length, 70)
    assert.isTrue(excerpt!.startsWith("  …"))
    assert.strictEqual(excerpt![caret!.indexOf("^")], "@")
  })

  it("the excerpt is the line of the error only, with a control character made visible", () => {
    const error = assertError(`a(x=1)\n| b(\u0000)\n| c()`, "unexpected_character", 2, 5)
    assert.strictEqual(error.message.split("\n").length, 3)
    assert.include(error.message, "\n  | b(\u2400)\n      ^")
  })
})

describe("RequestDsl.parse: limits", () => {
  it("1,000 ops fail with too_many_ops at the 65th op under the default cap", () => {
    const text = Array.from({ length: 1000 }, (_, i) => `op${i}()`).join("; ")
    const error = fails(text)
    assert.strictEqual(error.reason, "too_many_ops")
    assert.strictEqual(text.slice(error.position!.offset, error.position!.offset + 6), "op64()")
    assert.include(error.message, "at most 64 ops")
    assert.include(error.message, "split")
    assert.strictEqual(ok(Array.from({ length: 64 }, () => "a()").join(" | ")).ops.length, 64)
  })

  it("a custom cap; a million ops fail without reading them all", () => {
    assertError(`a(); b() | c()`, "too_many_ops", 1, 12, { maxOps: 2 })
    ok(`a(); b()`, { maxOps: 2 })
    const huge = "a();".repeat(1_000_000)
    const error = fails(huge)
    assert.strictEqual(error.reason, "too_many_ops")
    assert.strictEqual(error.position!.offset, 64 * 4)
  })

  it("depth counts from the argument value: 32 levels pass, 33 fail at the 33rd bracket", () => {
    ok(`a(x=${"[".repeat(32)}${"]".repeat(32)})`)
    assertError(`a(x=${"[".repeat(33)}${"]".repeat(33)})`, "too_deep", 1, 37)
    assertError(`a(x={k: {k: [1]}})`, "too_deep", 1, 13, { maxDepth: 2 })
    ok(`a(x={k: [1]})`, { maxDepth: 2 })
    ok(`a(x=1)`, { maxDepth: 0 })
    assertError(`a(x=[])`, "too_deep", 1, 5, { maxDepth: 0 })
    assert.include(fails(`a(x=[[]])`, { maxDepth: 1 }).message, "deeper here than the limit of 1 levels")
  })

  it("100,000 [ fail fast with too_deep, no stack overflow, also with a huge maxDepth", () => {
    const deep = `a(x=${"[".repeat(100_000)})`
    const error = fails(deep)
    assert.strictEqual(error.reason, "too_deep")
    assert.strictEqual(error.position!.offset, 4 + 32)
    assert.include(error.message, "32")
    const unbounded = fails(deep, { maxDepth: 1_000_000 })
    assert.strictEqual(unbounded.reason, "unexpected_token")
    assert.strictEqual(unbounded.position!.offset, deep.length - 1)
    const nested = `a(x=${"[".repeat(100_000)}${"]".repeat(100_000)})`
    assert.strictEqual(ok(nested, { maxDepth: 1_000_000 }).ops.length, 1)
  })

  it("long inputs parse in linear time: a 2 MB string and 64 ops of 10,000 arguments", () => {
    const long = "x".repeat(2_000_000)
    const value = ok(`a(s="${long}")`).ops[0]!.args[0]![1]
    assert.strictEqual(value._tag === "Literal" ? value.value : undefined, long)
    const args = Array.from({ length: 10_000 }, (_, i) => `k${i}=${i}`).join(", ")
    const program = ok(Array.from({ length: 64 }, () => `a(${args})`).join("; "))
    assert.strictEqual(program.ops[63]!.args.length, 10_000)
  })

  it("the default limits", () => {
    assert.deepStrictEqual(defaultLimits, { maxOps: 64, maxDepth: 32 })
  })
})

describe("RequestDsl.fromJson", () => {
  it("parallel (the default): each op is its own pipeline, with its path", () => {
    for (const mode of [undefined, "parallel"]) {
      const program = okJson([{ verb: "a", args: { path: "x", n: 1 } }, { verb: "b" }], mode)
      assert.deepStrictEqual(program.pipelines, [[0], [1]])
      assert.deepStrictEqual(
        program.ops.map((op) => [op.index, op.pipeline, op.step, op.verb, op.path, op.position]),
        [
          [0, 0, 0, "a", "ops[0]", undefined],
          [1, 1, 0, "b", "ops[1]", undefined]
        ]
      )
      assert.deepStrictEqual(argsOf(program.ops[0]!), [
        ["path", lit("x")],
        ["n", lit(1)]
      ])
    }
  })

  it("chain: one pipeline; $prev strings are references, $$prev strings literals with one $ less", () => {
    const program = okJson(
      [
        { verb: "a", args: {} },
        {
          verb: "b",
          args: {
            w: "$prev",
            x: "$prev.items[0].name",
            y: ["$prev.0", { z: "$prev[1]" }],
            e1: "$$prev",
            e2: "$$prev.x",
            e3: "$$$prev",
            l1: "$previous",
            l2: "prev",
            l3: "$ prev",
            n: null,
            t: true
          }
        }
      ],
      "chain"
    )
    assert.deepStrictEqual(program.pipelines, [[0, 1]])
    assert.deepStrictEqual(
      program.ops.map((op) => [op.pipeline, op.step]),
      [
        [0, 0],
        [0, 1]
      ]
    )
    assert.deepStrictEqual(argsOf(program.ops[1]!), [
      ["w", prev([], "$prev")],
      ["x", prev(["items", 0, "name"], "$prev.items[0].name")],
      [
        "y",
        {
          _tag: "List",
          items: [prev([0], "$prev.0"), { _tag: "Record", entries: [["z", prev([1], "$prev[1]")]] }]
        }
      ],
      ["e1", lit("$prev")],
      ["e2", lit("$prev.x")],
      ["e3", lit("$$prev")],
      ["l1", lit("$previous")],
      ["l2", lit("prev")],
      ["l3", lit("$ prev")],
      ["n", lit(null)],
      ["t", lit(true)]
    ])
  })

  it("malformed references fail with invalid_reference and the path of the value", () => {
    failsJson([{ verb: "a" }, { verb: "b", args: { x: "$prev..a" } }], "chain", "invalid_reference", "ops[1].args.x")
    failsJson(
      [{ verb: "a" }, { verb: "b", args: { x: { y: ["$prev[a]"] } } }],
      "chain",
      "invalid_reference",
      "ops[1].args.x.y[0]"
    )
    const trailing = failsJson(
      [{ verb: "a" }, { verb: "b", args: { "a b": "$prev.x y" } }],
      "chain",
      "invalid_reference",
      `ops[1].args["a b"]`
    )
    assert.include(trailing.message, `"$$prev.x y"`)
  })

  it("$prev in a first step: every op in parallel mode, the first op in chain mode", () => {
    const parallel = failsJson(
      [{ verb: "a" }, { verb: "b", args: { x: ["$prev"] } }],
      undefined,
      "prev_in_first_step",
      "ops[1].args.x[0]"
    )
    assert.include(parallel.message, `"mode": "chain"`)
    failsJson(
      [{ verb: "a", args: { x: { y: "$prev.a" } } }, { verb: "b" }],
      "chain",
      "prev_in_first_step",
      "ops[0].args.x.y"
    )
  })

  it("strict shape: ops a non-empty array of objects, a string verb, object args, no other keys, a known mode", () => {
    failsJson("a()", undefined, "invalid_json_form", "ops")
    failsJson([], undefined, "empty", "ops")
    failsJson([{ verb: "a" }], "serial", "invalid_json_form", "mode")
    failsJson([{ verb: "a" }, "b"], undefined, "invalid_json_form", "ops[1]")
    failsJson([{ verb: "a" }, null], undefined, "invalid_json_form", "ops[1]")
    failsJson([{ verb: "a" }, { args: {} }], undefined, "invalid_json_form", "ops[1].verb")
    failsJson([{ verb: 3 }], undefined, "invalid_json_form", "ops[0].verb")
    failsJson([{ verb: "a b" }], undefined, "invalid_json_form", "ops[0].verb")
    failsJson([{ verb: "1a" }], undefined, "invalid_json_form", "ops[0].verb")
    failsJson([{ verb: "a", args: [1] }], undefined, "invalid_json_form", "ops[0].args")
    failsJson([{ verb: "a", args: null }], undefined, "invalid_json_form", "ops[0].args")
    failsJson([{ verb: "a", args: { x: undefined } }], undefined, "invalid_json_form", "ops[0].args.x")
    failsJson([{ verb: "a", args: { x: [Number.NaN] } }], undefined, "invalid_json_form", "ops[0].args.x[0]")
    failsJson([{ verb: "a", args: { x: new Date(0) } }], undefined, "invalid_json_form", "ops[0].args.x")
    const unknown = failsJson([{ verb: "a", verbs: "b" }], undefined, "invalid_json_form", "ops[0].verbs")
    assert.include(unknown.message, `unknown field "verbs"`)
    assert.include(unknown.message, `did you mean "verb"?`)
    failsJson([{ verb: "a", "x y": 1 }], undefined, "invalid_json_form", `ops[0]["x y"]`)
    const wrongType = failsJson([{ verb: 3 }], undefined, "invalid_json_form", "ops[0].verb")
    assert.include(wrongType.message, "found a number (3)")
  })

  it("limits: maxOps on the count, maxDepth from the argument value", () => {
    const many = Array.from({ length: 65 }, () => ({ verb: "a" }))
    const error = failsJson(many, undefined, "too_many_ops", "ops")
    assert.include(error.message, "64")
    okJson(many.slice(0, 64))
    failsJson(many.slice(0, 3), undefined, "too_many_ops", "ops", { maxOps: 2 })
    let deep: unknown = 1
    for (let i = 0; i < 33; i++) deep = [deep]
    failsJson([{ verb: "a", args: { x: deep } }], undefined, "too_deep", `ops[0].args.x${"[0]".repeat(32)}`)
    okJson([{ verb: "a", args: { x: (deep as Array<unknown>)[0] } }])
    failsJson([{ verb: "a", args: { x: { y: [1] } } }], undefined, "too_deep", "ops[0].args.x.y", { maxDepth: 1 })
  })

  it("an own __proto__ argument stays an ordinary argument", () => {
    const args = JSON.parse(`{"__proto__": {"polluted": true}, "a": 1}`)
    const program = okJson([{ verb: "a", args }])
    assert.deepStrictEqual(
      program.ops[0]!.args.map(([k]) => k),
      ["__proto__", "a"]
    )
    const resolved = Result.getOrThrow(resolveArgs(program.ops[0]!.args, undefined))
    assert.isTrue(Object.prototype.propertyIsEnumerable.call(resolved, "__proto__"))
    assert.strictEqual((resolved as { polluted?: unknown }).polluted, undefined)
    assert.strictEqual(({} as { polluted?: unknown }).polluted, undefined)
  })
})

describe("RequestDsl.resolve", () => {
  const output = {
    files: [
      { name: "a.ts", path: "src/a.ts", size: 10 },
      { name: "b.ts", path: "src/b.ts", size: 20 }
    ],
    count: 2,
    label: "two",
    none: null
  }

  it("substitutes references inside lists and records; literals stay", () => {
    const program = ok(
      `a() | b(x=$prev.files[1].name, y=[$prev.count, {n: $prev.files.0.size}], z="lit", w=$prev.none)`
    )
    const resolved = resolveArgs(program.ops[1]!.args, output)
    assert.deepStrictEqual(Result.getOrThrow(resolved), { x: "b.ts", y: [2, { n: 10 }], z: "lit", w: null })
    assert.deepStrictEqual(Result.getOrThrow(resolve(prev([], "$prev"), output)), output)
    assert.deepStrictEqual(Result.getOrThrow(resolve(lit(3), output)), 3)
  })

  const missing = (path: ReadonlyArray<string | number>, text: string, value: unknown): MissingField => {
    const result = resolve(prev(path, text), value)
    if (Result.isSuccess(result)) throw new Error(`expected ${text} to be missing`)
    assert.instanceOf(result.failure, MissingField)
    assert.strictEqual(result.failure.reference, text)
    return result.failure
  }

  it("a missing field: the fields that exist there, sorted", () => {
    const error = missing(["files", 0, "nme"], "$prev.files[0].nme", output)
    assert.strictEqual(
      error.message,
      `$prev.files[0].nme: the previous step's output has no field "nme" at $prev.files[0]; it has: name, path, size`
    )
    assert.deepStrictEqual(error.available, ["name", "path", "size"])
    const top = missing(["file"], "$prev.file", output)
    assert.include(top.message, `has no field "file" at $prev; it has: count, files, label, none`)
  })

  it("more than 30 fields: the first 30 and how many more", () => {
    const wide = Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`f${String(i).padStart(2, "0")}`, i]))
    const error = missing(["x"], "$prev.x", wide)
    assert.include(error.message, "it has: f00, f01,")
    assert.include(error.message, "f29, and 15 more")
    assert.notInclude(error.message, "f30")
    assert.strictEqual(error.available.length, 45)
  })

  it("an index out of range names the length; a name on an array asks for an index", () => {
    const error = missing(["files", 5], "$prev.files[5]", output)
    assert.include(error.message, "is an array of 2 items; there is no index 5 (valid indices: 0 to 1)")
    assert.include(missing([0], "$prev[0]", []).message, "is an empty array; there is no index 0")
    const named = missing(["files", "name"], "$prev.files.name", output)
    assert.include(named.message, `has no field "name"`)
    assert.include(named.message, "$prev.files[0]")
  })

  it("a string, number, boolean or null has no fields", () => {
    assert.include(
      missing(["count", "x"], "$prev.count.x", output).message,
      "at $prev.count is a number (2), which has no fields"
    )
    assert.include(missing(["label", 0], "$prev.label[0]", output).message, `is a string ("two"), which has no fields`)
    assert.include(missing(["none", "a"], "$prev.none.a", output).message, "is null, which has no fields")
    assert.include(missing(["a"], "$prev.a", true).message, "is a boolean (true)")
    assert.include(missing(["a"], "$prev.a", undefined).message, "which has no fields")
  })

  it("never walks into the prototype: constructor, __proto__, toString and length are missing", () => {
    assert.include(missing(["constructor"], "$prev.constructor", output).message, `no field "constructor"`)
    assert.include(missing(["__proto__"], "$prev.__proto__", output).message, `no field "__proto__"`)
    assert.include(missing(["files", "toString"], "$prev.files.toString", output).message, "array of 2 items")
    assert.include(missing(["files", "length"], "$prev.files.length", output).message, "array of 2 items")
    assert.include(missing(["hasOwnProperty"], "$prev.hasOwnProperty", {}).message, "it has no fields")
  })

  it("a number segment on an object is the key of that name", () => {
    assert.strictEqual(Result.getOrThrow(resolve(prev([0], "$prev.0"), { "0": "zero" })), "zero")
  })

  it("resolveArgs stops at the first missing reference", () => {
    const program = ok(`a() | b(x=$prev.count, y=$prev.nope)`)
    const result = resolveArgs(program.ops[1]!.args, output)
    assert.isTrue(Result.isFailure(result))
    if (Result.isFailure(result)) assert.strictEqual(result.failure.reference, "$prev.nope")
  })
})

describe("RequestDsl.format", () => {
  it("prints an op as DSL text", () => {
    const [op] = ok(`workspace_write( path='a.txt',content="hi\\n", )`).ops
    assert.strictEqual(format(op!), `workspace_write(path="a.txt", content="hi\\n")`)
    const [, chained] = ok(`a() | b("x y"=[1, -0, {k: $prev.items[0].name, "q r": null}], z=$prev.0)`).ops
    assert.strictEqual(format(chained!), `b("x y"=[1, -0, {k: $prev.items[0].name, "q r": null}], z=$prev.0)`)
    assert.strictEqual(format(ok(`system_time()`).ops[0]!), `system_time()`)
  })

  it("formatValue writes plain JSON values in DSL syntax", () => {
    assert.strictEqual(
      formatValue({ path: "a.ts", lines: [1, 2.5, -3e-7], "x-y": null, ok: true, skip: undefined }),
      `{path: "a.ts", lines: [1, 2.5, -3e-7], "x-y": null, ok: true}`
    )
    assert.strictEqual(formatValue("$prev"), `"$prev"`)
    assert.strictEqual(formatValue([undefined, Number.POSITIVE_INFINITY]), `[null, null]`)
    const cycle: Record<string, unknown> = { a: 1 }
    cycle["self"] = cycle
    assert.strictEqual(formatValue(cycle), `{a: 1, self: null}`)
  })

  // A small deterministic generator of values and programs.
  const random = (seed: number) => () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
  const keys = ["a", "path", "x_1", "b c", "é", "", "__proto__", "1"]
  const strings = ["", "hi", "line\nbreak", `quote " and ' and \\`, "\u0000\u001f", "😀 é", "$prev", "\ud800"]
  const numbers = [0, -0, 1, -1.5, 6.02e23, 1e-7, Number.MAX_VALUE, -123456789]
  const genValue = (next: () => number, depth: number, allowPrev: boolean): Value => {
    const pick = <A>(xs: ReadonlyArray<A>): A => xs[Math.floor(next() * xs.length)]!
    const kind = Math.floor(next() * (depth > 3 ? 4 : 7))
    switch (kind) {
      case 0:
        return lit(pick(strings))
      case 1:
        return lit(pick(numbers))
      case 2:
        return lit(pick([true, false, null]))
      case 3:
        return allowPrev
          ? pick([prev([], "$prev"), prev(["a", 0], "$prev.a[0]"), prev([1, "b"], "$prev.1.b")])
          : lit("p")
      case 4:
      case 5:
        return {
          _tag: "List",
          items: Array.from({ length: Math.floor(next() * 4) }, () => genValue(next, depth + 1, allowPrev))
        }
      default: {
        const used = [...new Set(Array.from({ length: Math.floor(next() * 4) }, () => pick(keys)))]
        return { _tag: "Record", entries: used.map((k) => [k, genValue(next, depth + 1, allowPrev)] as const) }
      }
    }
  }

  it("parse(format(op)) gives the op back, over generated programs", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed)
      const pipelines = 1 + Math.floor(next() * 3)
      const texts: Array<string> = []
      const expected: Array<{ verb: string; args: ReadonlyArray<readonly [string, Value]> }> = []
      for (let p = 0; p < pipelines; p++) {
        const steps = 1 + Math.floor(next() * 3)
        const calls: Array<string> = []
        for (let s = 0; s < steps; s++) {
          const names = [
            ...new Set(Array.from({ length: Math.floor(next() * 4) }, () => keys[Math.floor(next() * keys.length)]!))
          ]
          const args = names.map((k) => [k, genValue(next, 0, s > 0)] as const)
          const op: Op = {
            index: 0,
            pipeline: p,
            step: s,
            verb: `v${p}.s-${s}`,
            args,
            position: undefined,
            path: undefined
          }
          calls.push(format(op))
          expected.push({ verb: op.verb, args })
        }
        texts.push(calls.join(" | "))
      }
      const text = texts.join("; ")
      const program = ok(text)
      assert.deepStrictEqual(
        program.ops.map((op) => ({ verb: op.verb, args: argsOf(op) })),
        expected,
        text
      )
      for (const op of program.ops) assert.strictEqual(format(op), format({ ...op, position: undefined }))
    }
  })

  it("formatValue, parsed back and resolved, gives the JSON value back", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed)
      const value = Result.getOrThrow(resolve(genValue(next, 0, false), undefined))
      const [op] = ok(`a(x=${formatValue(value)})`).ops
      assert.deepStrictEqual(Result.getOrThrow(resolveArgs(op!.args, undefined)), { x: value })
    }
  })
})
