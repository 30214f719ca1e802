import { mkdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { Page } from 'playwright-core'

const require = createRequire(import.meta.url)

/** Where the browser tests write their screenshots for a reviewer (gitignored). */
export const SCREENSHOTS_DIR = join(import.meta.dirname, '..', '.screenshots')

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const

/** Full-page screenshots of the page as it is, at desktop and at phone width, then back to desktop. */
export async function screenshotBoth(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS_DIR, { recursive: true })
  for (const [width, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size)
    await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}-${width}.png`), fullPage: true })
  }
  await page.setViewportSize(VIEWPORTS.desktop)
}

let axeSource: string | undefined

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: string[] }

/** axe-core's serious and critical violations on the page as it is (run through DevTools, so the page's CSP stays on). */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8')
  await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is the global the script above defined; this runs in the page
    const page = globalThis as any
    const result = await page.axe.run(page.document, { resultTypes: ['violations'] })
    return result.violations.map((v: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }))
  })
  return (violations as AxeViolation[]).filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** Console errors and uncaught exceptions of a page, except the browser's own line for each 4xx answer (expected here). */
export function watchPageErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) return
    errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(String(error)))
  return errors
}
