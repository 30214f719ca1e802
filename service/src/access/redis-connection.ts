import type { Redis } from 'ioredis'

/**
 * A connection to Redis for counters that must never hold a request up: no offline queue and no
 * retry of a command (while Redis is away a command fails at once and this process's own counters
 * decide), reconnecting in the background every 0.2 to 2 s.
 */
export async function connectRedis({
  url,
  connectionName,
  commandTimeoutMs,
}: {
  url: string
  connectionName: string
  commandTimeoutMs: number
}): Promise<Redis> {
  // ioredis is loaded only where Redis is configured
  const { Redis: Client } = await import('ioredis')
  return new Client(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2_000,
    connectionName,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  })
}

/** Says goodbye (QUIT) where Redis answers, else drops the connection at once. */
export async function closeRedis(redis: Redis): Promise<void> {
  try {
    await redis.quit()
  } catch {
    redis.disconnect()
  }
}
