/**
 * Input-required rounds (MCP 2026-07-28, "multi round-trip requests"): the
 * `Client` a request gets when it may ask the client for input
 * (`tools/call`, `prompts/get`, `resources/read`).
 *
 * The handler runs unchanged. Each request it makes to the client
 * (`elicitation/create`, `sampling/createMessage`, `roots/list`) is filed
 * under a key — the one the handler chose with `Client.inputKey`, or one
 * derived from the request itself — and looked up in the answers this
 * attempt carries: the answers of earlier rounds, sealed in `requestState`,
 * and the client's `inputResponses`. An answered request returns the answer
 * at once; an unanswered one is noted. The first unanswered one gives the
 * handler's other fibers a moment to make their requests (so that requests
 * made concurrently travel together), then ends the round: it interrupts
 * itself (and with it, through structured concurrency, the handler) and the
 * request is answered with an input-required result listing every
 * unanswered request, and a new `requestState` with every answer used so
 * far. A request that needs no input pays for none of it: no fiber is
 * forked, no digest is computed. The retry runs the handler again from the start (see
 * `docs/adr/0003-input-required-rounds.md`): nothing is kept in memory
 * between rounds.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Client, ClientRequestFailed, InputKey } from "../Client.ts"
import { InvalidParams, type McpError } from "../McpError.ts"
import type { ClientCapabilities } from "../McpSchema.ts"
import { canonicalJson } from "../AuditLog.ts"
import type { ProtocolVersion } from "../ProtocolVersion.ts"
import { RequestContext } from "../RequestContext.ts"
import { type Refusal, RequestStateKeys } from "../RequestState.ts"
import { digest, open, seal } from "./sealing.ts"

/**
 * The outcomes a request's record gets when a round ends its handler: it
 * asked for input nobody gave, or an answer it was given is malformed.
 */
const roundOutcome = ["input_required", "input_response_malformed"] as const

/**
 * A handler's failure as the tool, prompt and resource layers see it: when an
 * input-required round ended the handler (an interruption from within, the
 * request's record saying so), the cause goes on untouched — the round
 * answers the request; anything else is `otherwise`'s to handle.
 */
export const unlessRoundEnded = <A, E, R>(
  cause: Cause.Cause<unknown>,
  otherwise: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Cause.hasInterruptsOnly(cause)
    ? Effect.flatMap(Effect.serviceOption(RequestContext), (request) => {
        const outcome = request._tag === "Some" ? request.value.record.outcome : undefined
        return outcome === roundOutcome[0] || outcome === roundOutcome[1]
          ? Effect.failCause(cause as Cause.Cause<never>)
          : otherwise
      })
    : otherwise

// A fast 53-bit hash (cyrb53): names input requests; not a security boundary
// (the answers it names travel inside the sealed state).
const hash53 = (text: string): string => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)
}

// The methods a handler may ask a 2026-07-28 client, and the prefix of the keys their questions are filed under.
const keyPrefix: Readonly<Record<string, string>> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots"
}

/**
 * A question a handler asks a 2026-07-28 client (in a round or inside a
 * task): its hash (what an answer recorded for it is checked against) and
 * the key derived from it, or why it cannot be asked at all.
 */
export const questionOf = (
  method: string,
  params: Record<string, unknown>
): { readonly hash: string; readonly key: string } | ClientRequestFailed => {
  const prefix = keyPrefix[method]
  if (prefix === undefined) {
    return new ClientRequestFailed({
      method,
      message:
        `${method} cannot be asked of a 2026-07-28 client: only elicitation/create, sampling/createMessage and ` +
        `roots/list travel as input requests.`
    })
  }
  const hash = hash53(`${method}\n${canonicalJson(params)}`)
  return { hash, key: `${prefix}-${hash}` }
}

/** `key`, or `key-2`, `key-3`… when it was given before (the same question asked again). */
export const numbered = (seen: Map<string, number>, key: string): string => {
  const count = (seen.get(key) ?? 0) + 1
  seen.set(key, count)
  return count === 1 ? key : `${key}-${count}`
}

/** What the sealed state holds (short keys: it travels on every retry). */
interface Payload {
  /** The format's version. */
  readonly v: 1
  /** The method of the request it belongs to. */
  readonly m: string
  /** SHA-256 of the request's identifying parameters. */
  readonly r: string
  /** When it was issued (epoch ms). */
  readonly t: number
  /** Answers of earlier rounds: key → [hash of the input request it answers, the answer]. */
  readonly a: Record<string, readonly [string, unknown]>
}

const isPayload = (u: unknown): u is Payload => {
  if (typeof u !== "object" || u === null) return false
  const p = u as Record<string, unknown>
  return (
    p.v === 1 &&
    typeof p.m === "string" &&
    typeof p.r === "string" &&
    typeof p.t === "number" &&
    typeof p.a === "object" &&
    p.a !== null &&
    Object.values(p.a).every((entry) => Array.isArray(entry) && entry.length === 2 && typeof entry[0] === "string")
  )
}

/** The parameters that make a request what it is (what its `requestState` is bound to). */
const identityOf = (params: { readonly [key: string]: unknown }): Record<string, unknown> => {
  const { _meta: _, inputResponses: __, requestState: ___, ...rest } = params
  return rest
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

// The shape the client's answer must have, before the handler decodes it in detail.
export const answerProblem = (method: string, answer: unknown): string | undefined => {
  if (!isObject(answer)) return "it is not an object"
  switch (method) {
    case "elicitation/create":
      return answer.action === "accept" || answer.action === "decline" || answer.action === "cancel"
        ? answer.content === undefined || isObject(answer.content)
          ? undefined
          : "its content is not an object"
        : 'its action is not "accept", "decline" or "cancel"'
    case "sampling/createMessage":
      return (answer.role === "user" || answer.role === "assistant") &&
        (isObject(answer.content) || Array.isArray(answer.content)) &&
        typeof answer.model === "string"
        ? undefined
        : "it is not a sampling result (role, content, model)"
    case "roots/list":
      return Array.isArray(answer.roots) ? undefined : "it has no roots array"
    default:
      return undefined
  }
}

const resultNames: Record<string, string> = {
  "elicitation/create": "ElicitResult",
  "sampling/createMessage": "CreateMessageResult",
  "roots/list": "ListRootsResult"
}

const refused = (reason: Refusal, detail: string) =>
  new InvalidParams({
    message:
      `Invalid requestState: ${detail}. Send the request again without requestState and inputResponses ` +
      `to start it over.`,
    data: { reason }
  })

/** One attempt of a request that may ask the client for input. */
export interface Round {
  /** The `Client` its handler gets. */
  readonly client: Client["Service"]
  /**
   * How the attempt ended, once the handler returned (whatever it returned):
   * `undefined` when it asked nothing that was not answered (its outcome is
   * the request's), the protocol error of a malformed answer, or `"blocked"`
   * when it asked for input nobody gave (the request is answered with
   * {@link result}).
   */
  readonly ended: () => McpError | "blocked" | undefined
  /** The input-required result of this round (once it is blocked). */
  readonly result: Effect.Effect<Record<string, unknown>>
}

/**
 * Reads a request's `inputResponses` and `requestState` (opening and checking
 * the state) and builds its round. Fails with −32602 when either is
 * malformed or the state is refused.
 */
export const prepare = (
  method: string,
  params: { readonly [key: string]: unknown },
  peer: { readonly protocolVersion: ProtocolVersion; readonly capabilities: ClientCapabilities },
  notify: (method: string, params?: Record<string, unknown>) => Effect.Effect<void>
): Effect.Effect<Round, InvalidParams> => {
  const responses = params.inputResponses
  if (responses !== undefined && !isObject(responses)) {
    return Effect.fail(
      new InvalidParams({
        message:
          "Invalid params: inputResponses must be an object whose keys are those of the input requests " +
          "and whose values are the client's results.",
        data: { reason: "input_responses_malformed" }
      })
    )
  }
  const state = params.requestState
  if (state !== undefined && typeof state !== "string") {
    return Effect.fail(
      new InvalidParams({
        message: "Invalid params: requestState must be the string the server sent, as it was.",
        data: { reason: "request_state_malformed" }
      })
    )
  }
  return Effect.flatMap(Effect.service(RequestStateKeys), (settings) => {
    // The request's digest, computed only when a state is opened or sealed: most requests need neither.
    let digested: string | undefined
    const requestDigest = Effect.suspend(() =>
      digested !== undefined
        ? Effect.succeed(digested)
        : Effect.map(digest(`${method}\n${canonicalJson(identityOf(params))}`), (hex) => (digested = hex))
    )
    const answers = new Map<string, { readonly hash: string | undefined; readonly value: unknown }>()
    const opened: Effect.Effect<void, InvalidParams> =
      state === undefined
        ? Effect.void
        : Effect.gen(function* () {
            const opened = yield* open(settings, state)
            if (opened._tag === "Refused") return yield* refused(opened.reason, opened.detail)
            const payload = opened.payload
            if (!isPayload(payload)) return yield* refused("request_state_malformed", "its content is not a state")
            if (payload.m !== method || payload.r !== (yield* requestDigest)) {
              return yield* refused(
                "request_state_mismatch",
                payload.m !== method
                  ? `it was issued for ${payload.m}, not ${method}`
                  : "it was issued for a request with other parameters (a retry must repeat the original request)"
              )
            }
            const now = yield* Clock.currentTimeMillis
            if (now - payload.t > settings.maxAgeMs) {
              return yield* refused(
                "request_state_expired",
                `it is ${Math.round((now - payload.t) / 1000)} s old; states are valid for ${Math.round(settings.maxAgeMs / 1000)} s`
              )
            }
            for (const [key, [hash, value]] of Object.entries(payload.a)) answers.set(key, { hash, value })
          })
    return Effect.map(opened, (): Round => {
      // Answers the client gives now; for a key answered in an earlier round the recorded answer stays.
      if (responses !== undefined) {
        for (const [key, value] of Object.entries(responses)) {
          if (!answers.has(key)) answers.set(key, { hash: undefined, value })
        }
      }

      const asked = new Map<string, { readonly method: string; readonly params: Record<string, unknown> }>()
      const used: Record<string, readonly [string, unknown]> = {}
      const occurrences = new Map<string, number>()
      let asks = 0
      let ended: McpError | "blocked" | undefined

      // Once a request is unanswered, the handler's other fibers get a few turns
      // of the scheduler to make theirs, until a turn brings no new one.
      const settle = (seen: number, quiet: number): Effect.Effect<void> =>
        Effect.flatMap(Effect.yieldNow, () =>
          asks === seen ? (quiet >= 3 ? Effect.void : settle(seen, quiet + 1)) : settle(asks, 0)
        )
      // The round ends: the asking fiber interrupts itself, which stops the handler (the handler's
      // structured concurrency interrupts its other fibers; a handler cannot catch it with catch/mapError).
      // The request's record says why (the tool layer lets such an interruption through without calling it a
      // defect; the audit log and the request's log line show the outcome).
      const endRound = (why: McpError | "blocked"): Effect.Effect<never> => {
        if (ended !== undefined) return Effect.never
        ended = why
        const stop = Effect.andThen(
          Effect.serviceOption(RequestContext).pipe(
            Effect.map((request) => {
              if (request._tag === "Some") request.value.record.outcome = roundOutcome[why === "blocked" ? 0 : 1]
            })
          ),
          Effect.interrupt
        )
        return why === "blocked" ? Effect.andThen(settle(asks, 0), stop) : stop
      }

      const request = (
        inputMethod: string,
        inputParams: Record<string, unknown>
      ): Effect.Effect<Record<string, unknown>, ClientRequestFailed> =>
        Effect.flatMap(
          Effect.service(InputKey),
          (chosen): Effect.Effect<Record<string, unknown>, ClientRequestFailed> => {
            const question = questionOf(inputMethod, inputParams)
            if (question instanceof ClientRequestFailed) return Effect.fail(question)
            const hash = question.hash
            const key = chosen ?? numbered(occurrences, question.key)
            const answer = answers.get(key)
            // An answer recorded for another question under the same key is not this one's.
            if (answer !== undefined && (answer.hash === undefined || answer.hash === hash)) {
              const problem = answerProblem(inputMethod, answer.value)
              if (problem !== undefined) {
                return endRound(
                  new InvalidParams({
                    message:
                      `Invalid params: inputResponses.${key} is not a valid ${resultNames[inputMethod]}: ${problem}. ` +
                      `Answer the input request "${key}" with the client's result for ${inputMethod}.`,
                    data: { reason: "input_response_malformed", key }
                  })
                )
              }
              used[key] = [hash, answer.value]
              return Effect.succeed(answer.value as Record<string, unknown>)
            }
            asked.set(key, { method: inputMethod, params: inputParams })
            asks++
            return endRound("blocked")
          }
        )

      const client = Client.of({
        capabilities: () => peer.capabilities,
        protocolVersion: () => peer.protocolVersion,
        request,
        notify,
        rootsChanged: Stream.empty,
        publishRootsChanged: Effect.void,
        pending: () => asked.size
      })

      const result = Effect.suspend(() => {
        const inputRequests: Record<string, unknown> = {}
        for (const [key, { method: inputMethod, params: inputParams }] of asked) {
          inputRequests[key] = { method: inputMethod, params: inputParams }
        }
        return Effect.flatMap(Effect.zip(Clock.currentTimeMillis, requestDigest), ([now, r]) =>
          Effect.map(
            seal(settings, { v: 1, m: method, r, t: now, a: used } satisfies Payload),
            (requestState): Record<string, unknown> => ({
              resultType: "input_required",
              inputRequests,
              requestState
            })
          )
        )
      })

      return { client, ended: () => ended, result }
    })
  })
}
