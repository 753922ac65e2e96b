/**
 * The method table: every MCP method the server answers, and every client
 * notification it acts on. Adding a method is one file in this folder and
 * one line here.
 *
 * @since 0.1.0
 */
import type { Client } from "../Client.ts"
import type { Executor } from "../Executor.ts"
import type { Kernel } from "../Kernel.ts"
import type * as Method from "../Method.ts"
import type { RequestContext } from "../RequestContext.ts"
import type { Session } from "../Session.ts"
import { completionComplete } from "./completionComplete.ts"
import { initialize } from "./initialize.ts"
import { loggingSetLevel } from "./loggingSetLevel.ts"
import { cancelled, initialized, rootsListChanged } from "./notifications.ts"
import { ping } from "./ping.ts"
import { promptsGet } from "./promptsGet.ts"
import { promptsList } from "./promptsList.ts"
import { resourcesList } from "./resourcesList.ts"
import { resourcesRead } from "./resourcesRead.ts"
import { resourcesSubscribe, resourcesUnsubscribe } from "./resourcesSubscribe.ts"
import { resourcesTemplatesList } from "./resourcesTemplatesList.ts"
import { serverDiscover } from "./serverDiscover.ts"
import { subscriptionsListen } from "./subscriptionsListen.ts"
import { tasksCancel } from "./tasksCancel.ts"
import { tasksGet } from "./tasksGet.ts"
import { tasksUpdate } from "./tasksUpdate.ts"
import { toolsCall } from "./toolsCall.ts"
import { toolsList } from "./toolsList.ts"

/**
 * The default method table.
 *
 * **Example**
 *
 * ```ts
 * import { defaultMethods } from "effect-mcp-runtime/methods/index"
 *
 * defaultMethods.map((method) => method.name)
 * // => ["initialize", "ping", "server/discover", "subscriptions/listen", "tools/list", "tools/call",
 * //     "prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read",
 * //     "resources/subscribe", "resources/unsubscribe", "completion/complete", "logging/setLevel",
 * //     "tasks/get", "tasks/update", "tasks/cancel",
 * //     "notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed"]
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMethods: ReadonlyArray<
  Method.Request<Kernel | Session | RequestContext | Executor | Client> | Method.Notification<Session | Client>
> = [
  initialize,
  ping,
  serverDiscover,
  subscriptionsListen,
  toolsList,
  toolsCall,
  promptsList,
  promptsGet,
  resourcesList,
  resourcesTemplatesList,
  resourcesRead,
  resourcesSubscribe,
  resourcesUnsubscribe,
  completionComplete,
  loggingSetLevel,
  tasksGet,
  tasksUpdate,
  tasksCancel,
  initialized,
  cancelled,
  rootsListChanged
]
