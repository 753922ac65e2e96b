/**
 * RFC 6570 templates read backwards (matching) and forwards (expansion),
 * with the examples of the RFC's sections 1.2 and 3.2.
 */
import { assert, describe, it } from "@effect/vitest"
import { parse, TemplateError, type UriTemplate } from "../src/internal/uriTemplate.ts"

const template = (text: string): UriTemplate => {
  const parsed = parse(text)
  if (parsed instanceof TemplateError) throw new Error(parsed.reason)
  return parsed
}

describe("uriTemplate", () => {
  it("matches simple variables, which never span a reserved character", () => {
    const t = template("test://template/{id}/data")
    assert.deepStrictEqual(t.match("test://template/42/data"), { id: "42" })
    assert.deepStrictEqual(t.match("test://template/a%20b/data"), { id: "a b" })
    assert.isUndefined(t.match("test://template/4/2/data"))
    assert.isUndefined(t.match("test://template/42/other"))
    assert.isUndefined(t.match("test://template/%E0%A4%A/data"), "a malformed escape matches nothing")
    assert.deepStrictEqual(t.variables, ["id"])
  })

  it("several variables in one expression, and in a row", () => {
    const t = template("map://{x,y}/{z}")
    assert.deepStrictEqual(t.match("map://1024,768/3"), { x: "1024", y: "768", z: "3" })
    assert.strictEqual(t.expand({ x: "1024", y: "768", z: "3" }), "map://1024,768/3")
  })

  it("reserved and fragment expansion keep reserved characters", () => {
    const t = template("files://{+path}")
    assert.deepStrictEqual(t.match("files://src/a/b.ts"), { path: "src/a/b.ts" })
    assert.strictEqual(t.expand({ path: "src/a b.ts" }), "files://src/a%20b.ts")
    const f = template("doc://page{#section}")
    assert.deepStrictEqual(f.match("doc://page#intro/part"), { section: "intro/part" })
    assert.deepStrictEqual(f.match("doc://page"), {})
  })

  it("path segments, labels and exploded lists", () => {
    const t = template("repo://{owner}{/path*}")
    assert.deepStrictEqual(t.match("repo://effect/src/Effect.ts"), { owner: "effect", path: ["src", "Effect.ts"] })
    assert.strictEqual(t.expand({ owner: "effect", path: ["src", "a b"] }), "repo://effect/src/a%20b")
    assert.isTrue(t.lists.has("path"))
    const l = template("host://www{.domain*}")
    assert.deepStrictEqual(l.match("host://www.example.com"), { domain: ["example", "com"] })
  })

  it("query parameters in any order, optional, and foreign ones ignored", () => {
    const t = template("search://items{?q,page}")
    assert.deepStrictEqual(t.match("search://items?q=cat&page=2"), { q: "cat", page: "2" })
    assert.deepStrictEqual(t.match("search://items?page=2&q=cat"), { q: "cat", page: "2" })
    assert.deepStrictEqual(t.match("search://items?q=a%26b"), { q: "a&b" })
    assert.deepStrictEqual(t.match("search://items"), {})
    assert.deepStrictEqual(t.match("search://items?utm=x&q=y"), { q: "y" })
    assert.strictEqual(t.expand({ q: "a&b", page: "2" }), "search://items?q=a%26b&page=2")
    const c = template("search://items?fixed=1{&q}")
    assert.deepStrictEqual(c.match("search://items?fixed=1&q=z"), { q: "z" })
  })

  it("path parameters", () => {
    const t = template("m://x{;a,b}")
    assert.deepStrictEqual(t.match("m://x;a=1;b=2"), { a: "1", b: "2" })
    assert.strictEqual(t.expand({ a: "1", b: "" }), "m://x;a=1;b")
  })

  it("rejects malformed templates with the reason", () => {
    const cases: Array<[string, string]> = [
      ["a://{id", "unclosed"],
      ["a://id}", "unmatched"],
      ["a://{}", "empty expression"],
      ["a://{=x}", "reserved"],
      ["a://{x}/{x}", "appears twice"],
      ["a://{x y}", "bad variable name"],
      ["a://{x:0}", "prefix"]
    ]
    for (const [text, reason] of cases) {
      const parsed = parse(text)
      assert.instanceOf(parsed, TemplateError, text)
      assert.include((parsed as TemplateError).reason, reason, text)
    }
  })
})
