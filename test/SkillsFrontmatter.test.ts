/**
 * The pure parts of the skills capability: the frontmatter parser and its
 * checks (each problem's code, message and position), the `skill://` URIs,
 * where a configured directory lies relative to the root, and the settings
 * Schema's defaults and ceilings.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { fileUri, parseUri, skillUri } from "../capabilities/skills/catalog.ts"
import { parseDocument } from "yaml"
import { parseFrontmatter, type SkillProblem } from "../capabilities/skills/frontmatter.ts"
import { defaultSkillsSettings, SkillsSettingsSchema } from "../capabilities/skills/settings.ts"
import { placeOf } from "../capabilities/skills/sources.ts"

const problemOf = (text: string, directory = "notes"): SkillProblem => {
  const parsed = parseFrontmatter(text, directory, parseDocument)
  assert.isTrue(Result.isFailure(parsed), `parsed: ${JSON.stringify(parsed)}`)
  return (parsed as Result.Failure<unknown, SkillProblem>).failure
}

describe("parseFrontmatter", () => {
  it("gives the frontmatter as the yaml package parses it (YAML 1.2 core schema), BOM and CRLF included", () => {
    const parsed = parseFrontmatter(
      "\uFEFF---\r\nname: notes\r\ndescription: 'Take notes: short ones'\r\nversion: 1.0\r\nbeta: yes\r\n" +
        "tags: [a, b]\r\nwhen: 2026-01-01\r\n---\r\n# Notes\r\n",
      "notes",
      parseDocument
    )
    assert.deepStrictEqual(Result.getOrUndefined(parsed), {
      name: "notes",
      description: "Take notes: short ones",
      version: 1,
      beta: "yes",
      tags: ["a", "b"],
      when: "2026-01-01"
    })
  })

  it("places broken YAML by its line and column in SKILL.md", () => {
    const problem = problemOf("---\nname: notes\ndescription: one: two\n---\n")
    assert.strictEqual(problem.code, "invalid_yaml")
    assert.strictEqual(problem.line, 3)
    assert.strictEqual(problem.column, 14)
    assert.include(problem.message, "(line 3, column 14)")
    assert.include(problem.message, "Quote a value")
    const repeated = problemOf("---\nname: notes\nname: again\n---\n")
    assert.strictEqual(repeated.line, 3)
    assert.include(repeated.message, "Keep one of the repeated keys")
  })

  it("names each rule a frontmatter breaks", () => {
    const cases: ReadonlyArray<readonly [string, string, string]> = [
      ["# no frontmatter\n", "no_frontmatter", "first line must be ---"],
      ["---\nname: notes\n", "no_frontmatter", "never closes it"],
      ["---\njust text\n---\n", "frontmatter_not_mapping", "is string, not a mapping"],
      ["---\ndescription: x\n---\n", "missing_field", "has no name"],
      [
        "---\nname: notes\ndescription: ''\n---\n",
        "missing_field",
        "description in the frontmatter of SKILL.md is empty"
      ],
      ["---\nname: [notes]\ndescription: x\n---\n", "missing_field", "name in the frontmatter of SKILL.md is a list"],
      ["---\nname: -notes\ndescription: x\n---\n", "invalid_name", "naming rule"],
      [
        "---\nname: notes\ndescription: x\nmetadata:\n  io.modelcontextprotocol/a: b\n---\n",
        "reserved_metadata",
        "io.modelcontextprotocol/a"
      ],
      ["---\nname: notes\ndescription: x\nscore: .inf\n---\n", "not_json", "score"]
    ]
    for (const [text, code, message] of cases) {
      const problem = problemOf(text)
      assert.strictEqual(problem.code, code, text)
      assert.include(problem.message, message, text)
      assert.strictEqual(problem.path, "SKILL.md")
    }
    assert.strictEqual(problemOf("---\nname: notes\ndescription: x\n---\n", "other").code, "name_mismatch")
    assert.isTrue(
      Result.isSuccess(
        parseFrontmatter(`---\nname: ${"a".repeat(64)}\ndescription: x\n---\n`, "a".repeat(64), parseDocument)
      )
    )
    assert.strictEqual(
      problemOf(`---\nname: ${"a".repeat(65)}\ndescription: x\n---\n`, "a".repeat(65)).code,
      "invalid_name"
    )
  })
})

describe("skill URIs", () => {
  it("builds and reads skill:// URIs, percent-encoding each segment", () => {
    assert.strictEqual(skillUri("notes"), "skill://notes/SKILL.md")
    assert.strictEqual(fileUri("notes", "a dir/ü.md"), "skill://notes/a%20dir/%C3%BC.md")
    assert.deepStrictEqual(parseUri("skill://notes/a%20dir/%C3%BC.md"), { name: "notes", path: "a dir/ü.md" })
    assert.deepStrictEqual(parseUri("skill://notes/"), { name: "notes", path: "" })
    for (const uri of ["skill://", "skill://notes/../x", "skill://notes//x", "skill://notes/%E0%A4%A", "notes://x"]) {
      assert.isUndefined(parseUri(uri), uri)
    }
  })
})

describe("placeOf", () => {
  it("puts a configured directory under the root or outside it", () => {
    assert.deepStrictEqual(placeOf(".agents/skills", "/srv/p"), { relative: ".agents/skills" })
    assert.deepStrictEqual(placeOf("./a/../b/", "/srv/p"), { relative: "b" })
    assert.deepStrictEqual(placeOf("/srv/p", "/srv/p"), { relative: "" })
    assert.deepStrictEqual(placeOf("/srv/p/x", "/srv/p"), { relative: "x" })
    assert.deepStrictEqual(placeOf("/srv/px", "/srv/p"), { absolute: "/srv/px" })
    assert.deepStrictEqual(placeOf("../shared/skills", "/srv/p"), { absolute: "/srv/shared/skills" })
    assert.deepStrictEqual(placeOf("/home/u/.claude/skills", "/srv/p"), { absolute: "/home/u/.claude/skills" })
  })
})

describe("SkillsSettingsSchema", () => {
  it("decodes {} to the defaults and refuses limits above the extension's", () => {
    assert.deepStrictEqual(Schema.decodeUnknownSync(SkillsSettingsSchema)({}), defaultSkillsSettings)
    assert.strictEqual(Schema.decodeUnknownSync(SkillsSettingsSchema)({ maxFilesPerSkill: 100 }).maxFilesPerSkill, 100)
    assert.throws(() => Schema.decodeUnknownSync(SkillsSettingsSchema)({ maxFilesPerSkill: 513 }))
    assert.throws(() => Schema.decodeUnknownSync(SkillsSettingsSchema)({ maxBytesPerSkill: 16 * 1024 * 1024 + 1 }))
    assert.throws(() => Schema.decodeUnknownSync(SkillsSettingsSchema)({ directories: [""] }))
  })
})
