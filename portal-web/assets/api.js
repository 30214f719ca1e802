// The portal API over HTTP, as any client uses it. The session token lives in this module's memory
// only: never in localStorage, sessionStorage or a cookie (see docs/security.md, "The web pages").

let session
let expiryTimer
const listeners = new Set()

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail ?? `the server answered ${status}`)
    this.status = status
    this.code = problem?.code ?? 'internal'
    this.param = problem?.param
    this.requestId = problem?.requestId
  }
}

export const hasSession = () => session !== undefined

/** Keeps the token from log-in and ends the session when it expires. */
export function startSession({ token, expiresAt }) {
  session = { token, expiresAt }
  clearTimeout(expiryTimer)
  const ms = Date.parse(expiresAt) - Date.now()
  expiryTimer = setTimeout(() => endSession('expired'), Math.max(0, Math.min(ms, 2 ** 31 - 1)))
}

/** Forgets the token; listeners learn why (`logout` or `expired`). */
export function endSession(reason) {
  if (session === undefined) return
  session = undefined
  clearTimeout(expiryTimer)
  for (const listener of listeners) listener(reason)
}

export function onSessionEnd(listener) {
  listeners.add(listener)
}

/** One portal API call: the parsed JSON body, or an ApiError carrying the problem's code. */
export async function call(method, path, body) {
  const headers = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (session !== undefined) headers.authorization = `Bearer ${session.token}`
  let response
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    })
  } catch {
    throw new ApiError(0, { code: 'network', detail: 'the service could not be reached; check your connection and try again' })
  }
  const text = await response.text()
  let data = null
  try {
    data = text === '' ? null : JSON.parse(text)
  } catch {
    data = null
  }
  if (!response.ok) {
    const error = new ApiError(response.status, data)
    // A token the server no longer accepts (expired, or the secret changed) ends the session.
    if (error.code === 'invalid_token' && session !== undefined) endSession('expired')
    throw error
  }
  return data
}
