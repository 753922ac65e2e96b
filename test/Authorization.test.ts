/**
 * HTTP authorization against a real authorization server: `oidc-provider`
 * started in this process on a free port issues RS256 `at+jwt` access
 * tokens (client credentials grant, RFC 8707 resource indicators), and the
 * runtime's Streamable HTTP transport, with `OAuthResourceServer`, checks
 * them — 401 with the challenge and the protected-resource metadata, tokens
 * of another audience or issuer, garbage, a token in the query string, 403
 * `insufficient_scope` step-up, sessions bound to their subject — and the
 * principal reaches the gate's `principals` rules and the audit records,
 * under a legacy session (the official SDK client) and a 2026-07-28
 * request. The pure pieces (headers, challenges, metadata, scopes) and the
 * expiry check (with `TestClock`) are tested directly.
 */
import { assert, afterAll, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { decodeJwt, exportJWK, generateKeyPair } from "jose"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as HttpTransport from "../layers/HttpTransport.ts"
import * as OAuthResourceServer from "../layers/OAuthResourceServer.ts"
import { AuditLog, type Call } from "../src/AuditLog.ts"
import * as Authorization from "../src/Authorization.ts"
import * as Capability from "../src/Capability.ts"
import * as Gate from "../src/Gate.ts"
import * as Kernel from "../src/Kernel.ts"
import * as McpServer from "../src/McpServer.ts"
import * as Option from "effect/Option"
import { noServeFlags } from "../src/cli/compose.ts"
import * as Settings from "../src/cli/settings.ts"
import * as Prompt from "../src/Prompt.ts"
import * as Tool from "../src/Tool.ts"

// -- a real authorization server ------------------------------------------------------------

interface AuthorizationServer {
  readonly issuer: string
  /** A client-credentials token of `client` (its `sub`), for `resource`, with `scope`. */
  readonly token: (client: string, options: { readonly resource: string; readonly scope: string }) => Promise<string>
  readonly close: () => Promise<void>
}

const clients = ["alice", "bob"] as const
const scopes = ["mcp", "mcp:exec", "mcp:other"]

/** `oidc-provider` on 127.0.0.1, a free port, signing with `key`. */
const startAuthorizationServer = async (key: Record<string, unknown>): Promise<AuthorizationServer> => {
  // No type declarations ship with oidc-provider: imported through a variable, it is `any`.
  const specifier = "oidc-provider"
  const { default: Provider } = await import(specifier)
  const server = Http.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const provider = new Provider(issuer, {
    jwks: { keys: [key] },
    scopes,
    clients: clients.map((client) => ({
      client_id: client,
      client_secret: `${client}-secret`,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      scope: scopes.join(" ")
    })),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_context: unknown, resource: string) => ({
          scope: scopes.join(" "),
          audience: resource,
          accessTokenFormat: "jwt",
          accessTokenTTL: 300,
          jwt: { sign: { alg: "RS256" } }
        })
      }
    }
  })
  server.on("request", provider.callback())
  return {
    issuer,
    token: async (client, options) => {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${client}:${client}-secret`).toString("base64")}`
        },
        body: new URLSearchParams({ grant_type: "client_credentials", ...options })
      })
      const body: any = await response.json()
      if (response.status !== 200) throw new Error(`token request failed: ${JSON.stringify(body)}`)
      return body.access_token
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** One RSA signing key, as a private JWK (both authorization servers sign with it). */
const signingKey = async (): Promise<Record<string, unknown>> => {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true })
  return { ...(await exportJWK(privateKey)), kid: "test-key", alg: "RS256", use: "sig" }
}

// -- the MCP server ------------------------------------------------------------------------

const Demo = Capability.make(
  { id: "demo", description: "tools, a prompt", version: "1.0.0" },
  Effect.succeed({
    tools: [
      Tool.make("echo", { description: "Echoes its text.", input: Schema.Struct({ text: Schema.String }) }).pipe(
        Tool.handle(({ text }) => Effect.succeed(text))
      ),
      Tool.make("danger", { description: "Needs the scope mcp:exec." }).pipe(Tool.handle(() => Effect.succeed("done"))),
      Tool.make("note", {
        description: "Denied to bob by the gate.",
        input: Schema.Struct({ text: Schema.String })
      }).pipe(Tool.handle(({ text }) => Effect.succeed(`noted: ${text}`)))
    ],
    prompts: [Prompt.make("brief", { description: "For alice only." }).pipe(Prompt.handle(() => Effect.succeed("hi")))]
  })
)

/** Gate: bob may not get the prompt nor call `demo_note`; everything else is allowed. */
const Gated = Layer.succeed(
  Gate.Gate,
  Gate.fromRules({
    rules: [
      { effect: "deny", names: ["demo_brief"], principals: ["bob"] },
      { effect: "deny", names: ["demo_note"], principals: ["bob"] }
    ]
  })
)

interface McpUnderTest {
  readonly url: string
  readonly audits: Array<Call>
  readonly stop: () => Promise<void>
}

/** The runtime's HTTP transport in this process, on a free port, with authorization by `issuer`. */
const startMcp = async (issuer: string): Promise<McpUnderTest> => {
  const audits: Array<Call> = []
  const Audit = Layer.succeed(AuditLog, AuditLog.of({ record: (call) => Effect.sync(() => void audits.push(call)) }))
  let listening: (url: string) => void = () => undefined
  const url = new Promise<string>((resolve) => (listening = resolve))
  const fiber = Effect.runFork(
    Effect.gen(function* () {
      const { url } = yield* HttpTransport.Listener
      // The resource is this server's URL: tokens must be issued for it.
      const authorization = yield* OAuthResourceServer.make({
        issuer,
        audience: url,
        requiredScopes: ["mcp"],
        toolScopes: { "demo_dang*": ["mcp:exec"] }
      })
      listening(url)
      return yield* HttpTransport.serve(McpServer.make(), { authorization })
    }).pipe(
      Effect.provide(
        Layer.mergeAll(HttpTransport.layerServer({ port: 0 }), Demo, Gated, Audit).pipe(
          Layer.provideMerge(Kernel.layer())
        )
      ),
      Effect.provide(Logger.layer([]))
    )
  )
  const failed = Effect.runPromise(Fiber.await(fiber)).then((exit) => {
    throw new Error(`the server stopped: ${String(exit)}`)
  })
  return {
    url: await Promise.race([url, failed]),
    audits,
    stop: () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined)
  }
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body)
  })

const initializeRequest = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "auth-test", version: "1" } }
}

/** A session opened with raw HTTP and `token`; returns its id. */
const openSession = async (url: string, token: string): Promise<string> => {
  const bearer = { authorization: `Bearer ${token}` }
  const response = await post(url, initializeRequest, bearer)
  assert.strictEqual(response.status, 200)
  await response.body?.cancel()
  const session = response.headers.get("mcp-session-id")!
  const initialized = await post(
    url,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { ...bearer, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
  )
  assert.strictEqual(initialized.status, 202)
  return session
}

/** The parameters of a `WWW-Authenticate: Bearer …` challenge. */
const challengeOf = (response: Response): Record<string, string> => {
  const value = response.headers.get("www-authenticate") ?? ""
  assert.match(value, /^Bearer /)
  const params: Record<string, string> = {}
  for (const [, name, quoted] of value.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)) params[name!] = quoted!
  return params
}

/** The SDK client over Streamable HTTP, sending `token`. */
const sdkClient = async (url: string, token: string): Promise<Client> => {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } }
  })
  const client = new Client({ name: "auth-test", version: "1.0.0" })
  await client.connect(transport)
  return client
}

// -- the tests -----------------------------------------------------------------------------

describe("an OAuth 2.1 resource server over Streamable HTTP, against oidc-provider", () => {
  let as: AuthorizationServer
  let stranger: AuthorizationServer
  let mcp: McpUnderTest
  const token = (client: "alice" | "bob", scope = "mcp", resource = mcp.url) => as.token(client, { resource, scope })

  beforeAll(async () => {
    const key = await signingKey()
    // Another issuer with the same key: only the issuer check tells its tokens apart.
    ;[as, stranger] = await Promise.all([startAuthorizationServer(key), startAuthorizationServer(key)])
    mcp = await startMcp(as.issuer)
  })
  afterAll(async () => {
    await mcp?.stop()
    await Promise.all([as?.close(), stranger?.close()])
  })

  it("no token: 401 with a challenge naming the metadata, which names the authorization server", async () => {
    const response = await post(mcp.url, initializeRequest)
    assert.strictEqual(response.status, 401)
    const body: any = await response.json()
    assert.strictEqual(body.error.code, -32000)
    assert.include(body.error.message, "access token is required")
    const challenge = challengeOf(response)
    const { port } = new URL(mcp.url)
    assert.strictEqual(challenge.resource_metadata, `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`)
    assert.strictEqual(challenge.scope, "mcp")
    assert.isUndefined(challenge.error)
    // The metadata needs no token; it is served at the path-suffixed URL and at the root one.
    for (const at of [challenge.resource_metadata!, `http://127.0.0.1:${port}/.well-known/oauth-protected-resource`]) {
      const metadata = await fetch(at)
      assert.strictEqual(metadata.status, 200)
      assert.deepStrictEqual(await metadata.json(), {
        resource: mcp.url,
        authorization_servers: [as.issuer],
        scopes_supported: ["mcp", "mcp:exec"],
        bearer_methods_supported: ["header"]
      })
    }
    // And the authorization server it names publishes its metadata (what a client discovers next).
    const discovery: any = await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()
    assert.strictEqual(discovery.issuer, as.issuer)
    // GET and DELETE need a token too.
    assert.strictEqual((await fetch(mcp.url, { headers: { accept: "text/event-stream" } })).status, 401)
    assert.strictEqual((await fetch(mcp.url, { method: "DELETE" })).status, 401)
  })

  it("a token for another resource (audience) is refused with 401 invalid_token", async () => {
    const other = await token("alice", "mcp", "http://other.example/mcp")
    assert.strictEqual(decodeJwt(other).aud, "http://other.example/mcp")
    const response = await post(mcp.url, initializeRequest, { authorization: `Bearer ${other}` })
    assert.strictEqual(response.status, 401)
    const challenge = challengeOf(response)
    assert.strictEqual(challenge.error, "invalid_token")
    assert.include(challenge.error_description, "not for this resource")
    assert.include(((await response.json()) as any).error.message, "invalid access token")
  })

  it("a token of another issuer, even signed with the same key, is refused", async () => {
    const foreign = await stranger.token("alice", { resource: mcp.url, scope: "mcp" })
    assert.strictEqual(decodeJwt(foreign).iss, stranger.issuer)
    const response = await post(mcp.url, initializeRequest, { authorization: `Bearer ${foreign}` })
    assert.strictEqual(response.status, 401)
    assert.include(challengeOf(response).error_description, `not issued by ${as.issuer}`)
  })

  it("garbage and tampered tokens get 401; a malformed header 400; a token in the query string is not read", async () => {
    const garbage = await post(mcp.url, initializeRequest, { authorization: "Bearer not-a-jwt" })
    assert.strictEqual(garbage.status, 401)
    assert.strictEqual(challengeOf(garbage).error, "invalid_token")
    assert.strictEqual(challengeOf(garbage).error_description, "the token is not a valid JWT")
    const notJson = await post(mcp.url, initializeRequest, { authorization: "Bearer a.b.c" })
    assert.strictEqual(notJson.status, 401)
    assert.strictEqual(challengeOf(notJson).error_description, "the token is not a valid JWT")
    const valid = await token("alice")
    const [head, payload, signature] = valid.split(".")
    const claims = JSON.parse(Buffer.from(payload!, "base64url").toString())
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: "bob" })).toString("base64url")
    const tampered = await post(mcp.url, initializeRequest, { authorization: `Bearer ${head}.${forged}.${signature}` })
    assert.strictEqual(tampered.status, 401)
    assert.include(challengeOf(tampered).error_description, "signature")
    for (const malformed of ["Bearer", "Bearer a b", "Bearer {json}"]) {
      const response = await post(mcp.url, initializeRequest, { authorization: malformed })
      assert.strictEqual(response.status, 400, malformed)
      assert.strictEqual(challengeOf(response).error, "invalid_request")
    }
    // Another scheme is no bearer token at all.
    assert.strictEqual((await post(mcp.url, initializeRequest, { authorization: "Basic YTpi" })).status, 401)
    const inQuery = await post(`${mcp.url}?access_token=${valid}`, initializeRequest)
    assert.strictEqual(inQuery.status, 401)
    assert.isUndefined(challengeOf(inQuery).error)
  })

  it("a token without the required scope gets 403 insufficient_scope", async () => {
    const narrow = await token("alice", "mcp:other")
    const response = await post(mcp.url, initializeRequest, { authorization: `Bearer ${narrow}` })
    assert.strictEqual(response.status, 403)
    const challenge = challengeOf(response)
    assert.strictEqual(challenge.error, "insufficient_scope")
    assert.strictEqual(challenge.scope, "mcp")
    assert.include(challenge.resource_metadata, "/.well-known/oauth-protected-resource/mcp")
  })

  it("step-up: a tool that needs a scope the token lacks gets 403 insufficient_scope naming it; with it, it runs", async () => {
    const plain = await token("alice", "mcp")
    const session = await openSession(mcp.url, plain)
    const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }
    const call = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "demo_danger" } }
    const refused = await post(mcp.url, call, { ...headers, authorization: `Bearer ${plain}` })
    assert.strictEqual(refused.status, 403)
    const challenge = challengeOf(refused)
    assert.strictEqual(challenge.error, "insufficient_scope")
    assert.strictEqual(challenge.scope, "mcp mcp:exec")
    assert.include(challenge.error_description, "mcp:exec")
    const body: any = await refused.json()
    assert.strictEqual(body.id, 5)
    assert.include(body.error.message, "insufficient scope")
    // The same subject with a wider token (step-up) goes on in the same session.
    const wide = await token("alice", "mcp mcp:exec")
    const allowed = await post(mcp.url, call, { ...headers, authorization: `Bearer ${wide}` })
    assert.strictEqual(allowed.status, 200)
    assert.deepStrictEqual(((await allowed.json()) as any).result.content, [{ type: "text", text: "done" }])
    // Tools without a scope of their own need the required scopes only.
    const echo = await post(
      mcp.url,
      { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "demo_echo", arguments: { text: "x" } } },
      { ...headers, authorization: `Bearer ${plain}` }
    )
    assert.strictEqual(echo.status, 200)
  })

  it("a session is used by the subject that opened it only", async () => {
    const session = await openSession(mcp.url, await token("alice"))
    const response = await post(
      mcp.url,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25", authorization: `Bearer ${await token("bob")}` }
    )
    assert.strictEqual(response.status, 403)
    assert.include(((await response.json()) as any).error.message, "another principal")
  })

  it("the SDK client with a valid token: tools work, and the audit record names the principal", async () => {
    const client = await sdkClient(mcp.url, await token("alice"))
    try {
      const { tools } = await client.listTools()
      assert.includeMembers(
        tools.map((tool) => tool.name),
        ["demo_echo", "demo_danger"]
      )
      const result = await client.callTool({ name: "demo_echo", arguments: { text: "from alice" } })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "from alice" }])
      const record = mcp.audits.find((call) => (call.arguments as any)?.text === "from alice")
      assert.isDefined(record)
      assert.strictEqual(record!.principal, "alice")
      assert.strictEqual(record!.tool, "demo_echo")
      assert.strictEqual(record!.outcome, "ok")
    } finally {
      await client.close()
    }
  })

  it("the gate's principals rules see the token's subject: bob is denied the prompt, alice gets it", async () => {
    const alice = await sdkClient(mcp.url, await token("alice"))
    const bob = await sdkClient(mcp.url, await token("bob"))
    try {
      const got = await alice.getPrompt({ name: "demo_brief" })
      assert.deepStrictEqual(got.messages[0]?.content, { type: "text", text: "hi" })
      const denied = await bob.getPrompt({ name: "demo_brief" }).then(
        () => undefined,
        (error: Error) => error
      )
      assert.instanceOf(denied, Error)
      assert.include(denied!.message, "not allowed on this server (rule 1 of its gate)")
    } finally {
      await Promise.all([alice.close(), bob.close()])
    }
  })

  it("the gate's principals rules apply to tools/call: bob's call is denied and audited as his, alice's runs", async () => {
    const alice = await sdkClient(mcp.url, await token("alice"))
    const bob = await sdkClient(mcp.url, await token("bob"))
    try {
      const denied = await bob.callTool({ name: "demo_note", arguments: { text: "bob's note" } })
      assert.isTrue(denied.isError)
      assert.strictEqual((denied._meta as any)?.["effect-mcp-runtime/error"]?.code, "denied")
      assert.include(
        (denied.content as Array<{ text: string }>)[0]?.text,
        "not allowed on this server (rule 2 of its gate)"
      )
      const bobs = mcp.audits.filter((call) => (call.arguments as any)?.text === "bob's note")
      assert.strictEqual(bobs.length, 1)
      assert.strictEqual(bobs[0]!.tool, "demo_note")
      assert.strictEqual(bobs[0]!.outcome, "denied")
      assert.strictEqual(bobs[0]!.principal, "bob")
      // The same tool, the same rule: alice is not named by it, so her call runs.
      const allowed = await alice.callTool({ name: "demo_note", arguments: { text: "alice's note" } })
      assert.notStrictEqual(allowed.isError, true)
      assert.deepStrictEqual(allowed.content, [{ type: "text", text: "noted: alice's note" }])
      const alices = mcp.audits.filter((call) => (call.arguments as any)?.text === "alice's note")
      assert.strictEqual(alices.length, 1)
      assert.strictEqual(alices[0]!.outcome, "ok")
      assert.strictEqual(alices[0]!.principal, "alice")
    } finally {
      await Promise.all([alice.close(), bob.close()])
    }
  })

  it("a 2026-07-28 request (no session) carries its principal to the audit too", async () => {
    const response = await post(
      mcp.url,
      {
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: {
          name: "demo_echo",
          arguments: { text: "stateless bob" },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}
          }
        }
      },
      {
        authorization: `Bearer ${await token("bob")}`,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "demo_echo"
      }
    )
    assert.strictEqual(response.status, 200)
    assert.deepStrictEqual(((await response.json()) as any).result.content, [{ type: "text", text: "stateless bob" }])
    const record = mcp.audits.find((call) => (call.arguments as any)?.text === "stateless bob")
    assert.strictEqual(record?.principal, "bob")
  })
})

describe("OAuthResourceServer: expiry, with the clock in context", () => {
  let as: AuthorizationServer
  beforeAll(async () => {
    as = await startAuthorizationServer(await signingKey())
  })
  afterAll(() => as?.close())

  it.effect("a token is valid until its exp plus the tolerated skew, then refused as expired", () =>
    Effect.gen(function* () {
      const audience = "http://127.0.0.1:1/mcp"
      const jwt = yield* Effect.promise(() => as.token("alice", { resource: audience, scope: "mcp" }))
      const exp = decodeJwt(jwt).exp! * 1000
      const service = yield* OAuthResourceServer.make({ issuer: as.issuer, audience, clockToleranceSeconds: 30 })
      const verify = Effect.flip(service.verify(jwt))
      yield* TestClock.setTime(exp + 29_000)
      const principal = yield* service.verify(jwt)
      assert.strictEqual(principal.subject, "alice")
      assert.strictEqual(principal.clientId, "alice")
      assert.deepStrictEqual(principal.scopes, ["mcp"])
      assert.strictEqual(principal.issuer, as.issuer)
      yield* TestClock.setTime(exp + 31_000)
      const expired = yield* verify
      assert.strictEqual(expired._tag, "InvalidToken")
      assert.strictEqual(expired.message, "the token has expired")
    })
  )
})

describe("Authorization: the pure pieces", () => {
  it("reads the Authorization header: bearer tokens only, malformed ones apart", () => {
    assert.deepStrictEqual(Authorization.credentialsOf(undefined), { _tag: "None" })
    assert.deepStrictEqual(Authorization.credentialsOf("Basic YTpi"), { _tag: "None" })
    assert.deepStrictEqual(Authorization.credentialsOf("bearer abc.DEF-_~+/="), {
      _tag: "Bearer",
      token: "abc.DEF-_~+/="
    })
    for (const header of ["Bearer", "Bearer  ", "Bearer a b", "Bearer a,b", "Basic x, Bearer y"]) {
      assert.strictEqual(Authorization.credentialsOf(header)._tag, "Malformed", header)
    }
  })

  it("scopes from scope or scp; the principal is sub, else client_id", () => {
    assert.deepStrictEqual(Authorization.scopesOf({ scope: "a  b" }), ["a", "b"])
    assert.deepStrictEqual(Authorization.scopesOf({ scp: ["a", 1, "b"] }), ["a", "b"])
    assert.deepStrictEqual(Authorization.scopesOf({}), [])
    assert.strictEqual(Authorization.principalOf({ sub: "u", client_id: "c" })?.subject, "u")
    assert.strictEqual(Authorization.principalOf({ client_id: "c" })?.subject, "c")
    assert.strictEqual(Authorization.principalOf({ azp: "c" })?.clientId, "c")
    assert.isUndefined(Authorization.principalOf({ scope: "a" }))
  })

  it("metadata and challenges: offline_access is never advertised; tool scopes add up by glob", () => {
    const options: Authorization.Options = {
      issuer: "https://as.example",
      audience: "https://mcp.example/v1/mcp",
      requiredScopes: ["mcp", "offline_access"],
      toolScopes: { "exec_*": ["mcp:exec"], exec_run: ["mcp:run"] }
    }
    assert.strictEqual(
      Authorization.metadataUrlOf(options.audience),
      "https://mcp.example/.well-known/oauth-protected-resource/v1/mcp"
    )
    assert.deepStrictEqual(Authorization.metadataOf(options).scopes_supported, ["mcp", "mcp:exec", "mcp:run"])
    assert.notProperty(
      Authorization.metadataOf({ issuer: "https://as", audience: "https://m/mcp" }),
      "scopes_supported"
    )
    const forTool = Authorization.scopesForTool(options)
    assert.deepStrictEqual(forTool("exec_run"), ["mcp", "offline_access", "mcp:exec", "mcp:run"])
    assert.deepStrictEqual(forTool("system_echo"), ["mcp", "offline_access"])
    assert.strictEqual(
      Authorization.challenge({
        resourceMetadata: "https://m/x",
        scopes: ["a", "offline_access"],
        error: "invalid_token",
        description: 'bad "quote"'
      }),
      'Bearer error="invalid_token", error_description="bad \\"quote\\"", resource_metadata="https://m/x", scope="a"'
    )
    assert.deepStrictEqual(OAuthResourceServer.metadataUrls("https://as.example/t1"), [
      "https://as.example/t1/.well-known/openid-configuration",
      "https://as.example/.well-known/oauth-authorization-server/t1"
    ])
  })

  it.effect("make: a token check of your own, with the required scopes checked after it", () =>
    Effect.gen(function* () {
      const service = Authorization.make(
        { issuer: "https://as", audience: "https://mcp/mcp", requiredScopes: ["mcp"] },
        (token) =>
          token === "good"
            ? Effect.succeed({ subject: "ann", scopes: ["mcp"], claims: {} })
            : token === "narrow"
              ? Effect.succeed({ subject: "ann", scopes: [], claims: {} })
              : Effect.fail(new Authorization.InvalidToken({ message: "unknown token" }))
      )
      assert.strictEqual((yield* service.verify("good")).subject, "ann")
      const narrow = yield* Effect.flip(service.verify("narrow"))
      assert.strictEqual(narrow._tag, "InsufficientScope")
      assert.deepStrictEqual(narrow._tag === "InsufficientScope" ? narrow.missing : [], ["mcp"])
      assert.strictEqual((yield* Effect.flip(service.verify("other")))._tag, "InvalidToken")
    })
  )
})

describe("the CLI's settings: --auth-issuer, --auth-audience, http.authorization", () => {
  const resolve = (config: Record<string, unknown>, flags: Partial<Settings.Flags> = {}) =>
    Settings.resolve({
      root: "/srv/p",
      configFile: "/srv/p/mcp-runtime.json",
      config: config as any,
      flags: { ...noServeFlags, ...flags },
      env: {}
    })
  const gate = { rules: [{ effect: "deny", names: ["exec_*"], principals: ["guest-*"] }] }

  it.effect("flags win over the file; principals rules are allowed once callers are identified", () =>
    Effect.gen(function* () {
      const settings = yield* resolve(
        {
          transport: "http",
          gate,
          http: {
            authorization: {
              issuer: "https://file-as.example",
              audience: "https://mcp.example/mcp",
              requiredScopes: ["mcp"],
              toolScopes: { "exec_*": ["mcp:exec"] }
            }
          }
        },
        { authIssuer: Option.some("https://as.example") }
      )
      assert.deepStrictEqual(settings.http.authorization, {
        issuer: "https://as.example",
        audience: "https://mcp.example/mcp",
        requiredScopes: ["mcp"],
        toolScopes: { "exec_*": ["mcp:exec"] },
        resourceMetadataUrl: undefined
      })
      assert.strictEqual(settings.gate?.rules[0]?.principals?.[0], "guest-*")
      const fromFlags = yield* resolve(
        {},
        {
          transport: Option.some("http"),
          authIssuer: Option.some("https://as.example"),
          authAudience: Option.some("https://mcp.example/mcp")
        }
      )
      assert.strictEqual(fromFlags.http.authorization?.audience, "https://mcp.example/mcp")
    })
  )

  it.effect("refused: principals without authorization, one URL without the other, a bad URL, stdio", () =>
    Effect.gen(function* () {
      const message = (config: Record<string, unknown>, flags: Partial<Settings.Flags> = {}) =>
        Effect.map(Effect.flip(resolve(config, flags)), (error) => error.message)
      const principals = yield* message({ transport: "http", gate })
      assert.include(principals, "$.gate.rules[0].principals")
      assert.include(principals, "--auth-issuer and --auth-audience")
      const http = { transport: Option.some("http" as const) }
      assert.include(yield* message({}, { ...http, authIssuer: Option.some("https://as.example") }), "--auth-audience")
      assert.include(
        yield* message(
          {},
          { ...http, authIssuer: Option.some("as.example"), authAudience: Option.some("https://m/mcp") }
        ),
        '--auth-issuer "as.example": expected an http(s) URL'
      )
      assert.include(
        yield* message(
          {},
          { authIssuer: Option.some("https://as.example"), authAudience: Option.some("https://m/mcp") }
        ),
        "--auth-issuer applies to --transport http only"
      )
      assert.include(
        yield* message({ http: { authorization: { issuer: "https://as.example", audience: "https://m/mcp" } } }),
        "applies to --transport http only"
      )
    })
  )
})
