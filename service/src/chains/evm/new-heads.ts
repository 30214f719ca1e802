import type { Logger } from 'pino'
import type { WebSocketClient } from '../../lib/web-socket-client.ts'
import type { RpcClient } from './evm-rpc.ts'

type Notification = { method?: unknown; params?: { subscription?: unknown } }

/**
 * Follows a node's `eth_subscribe("newHeads")` on its socket: `onHead` for each head announced, and
 * once each time the socket opens again (heads may have come while it was closed). The subscription
 * is made again on every reconnection; until it is, the caller's poll is all there is. Returns the
 * function that stops.
 */
export function watchNewHeads(options: {
  socket: WebSocketClient
  rpc: Pick<RpcClient, 'request'>
  logger: Logger
  onHead: () => void
}): () => void {
  const { socket, rpc, logger, onHead } = options
  /** The subscription of the socket open now; notifications of any other are not ours. */
  let subscription: string | undefined
  let subscriptions = 0
  let stopped = false

  const stopNotifications = socket.onNotification((message) => {
    const { method, params } = message as Notification
    if (method === 'eth_subscription' && subscription !== undefined && params?.subscription === subscription) onHead()
  })

  const stopOpen = socket.onOpen(() => {
    subscription = undefined
    rpc
      .request<string>('eth_subscribe', ['newHeads'])
      .then((id) => {
        if (stopped) return
        subscription = id
        // after a reconnection the heads missed while the socket was closed are read at once
        if (subscriptions++ > 0) onHead()
        logger.info({ resubscribed: subscriptions > 1 }, 'subscribed to new heads')
      })
      .catch((error: unknown) => {
        if (!stopped) logger.warn({ error: (error as Error).message }, 'could not subscribe to new heads; polling the head')
      })
  })

  return () => {
    stopped = true
    stopNotifications()
    stopOpen()
    if (subscription !== undefined) rpc.request('eth_unsubscribe', [subscription]).catch(() => {})
  }
}
