import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * The documentation holds together: README.md, docs/**, bench/README.md and the SDKs' READMEs link each
 * other and the code, and a page moved or a heading renamed must not leave a reader at a dead end. Every
 * relative link resolves, a `#anchor` into a Markdown file names one of its headings (slugged as GitHub
 * does), and every table and code block renders.
 */

/** The repository's root: the nearest folder above this file holding both `docs/` and `service/`. */
function repositoryRoot(from: string): string {
  if (existsSync(join(from, 'docs')) && existsSync(join(from, 'service'))) return from
  if (dirname(from) === from) throw new Error('no repository root above the test')
  return repositoryRoot(dirname(from))
}

const ROOT = repositoryRoot(import.meta.dirname)

function markdownFiles(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) return docs(path)
      return name.endsWith('.md') ? [path] : []
    })
  const sdkReadmes = readdirSync(join(ROOT, 'sdks'))
    .map((name) => join(ROOT, 'sdks', name, 'README.md'))
    .filter(existsSync)
  return [join(ROOT, 'README.md'), join(ROOT, 'bench', 'README.md'), ...docs(join(ROOT, 'docs')), ...sdkReadmes]
}

/** The lines outside fenced code blocks, with inline code removed (a link inside code is not a link). */
function proseLines(markdown: string): string[] {
  let fenced = false
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced
      return ''
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '')
  })
}

/** GitHub's heading anchor: lower case, markup and punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const text = (heading[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

interface Problem {
  file: string
  link: string
  problem: string
}

/** What is wrong with each relative link of one Markdown file (none: an empty list). */
function brokenLinks(file: string, markdown: string, read = (path: string) => readFileSync(path, 'utf8')): Problem[] {
  const problems: Problem[] = []
  const where = relative(ROOT, file)
  for (const line of proseLines(markdown)) {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const link = match[1] ?? ''
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue // https:, mailto:: not a file of the repository
      const [path = '', anchor] = link.split('#')
      if (path === '') {
        if (anchor && !headingAnchors(markdown).has(anchor))
          problems.push({ file: where, link, problem: `no heading with the anchor #${anchor}` })
        continue
      }
      // a path starting with `/` is read from the repository's root, as GitHub renders it
      const target = path.startsWith('/')
        ? join(ROOT, decodeURIComponent(path))
        : resolve(dirname(file), decodeURIComponent(path))
      if (relative(ROOT, target).startsWith('..')) {
        problems.push({ file: where, link, problem: 'points outside the repository' })
      } else if (!existsSync(target)) {
        problems.push({ file: where, link, problem: 'no such file' })
      } else if (anchor && target.endsWith('.md') && !headingAnchors(read(target)).has(anchor)) {
        problems.push({ file: where, link, problem: `no heading with the anchor #${anchor}` })
      }
    }
  }
  return problems
}

/** Tables whose rows do not have their header's number of cells (GitHub splits on every unescaped `|`, in code too). */
function ragged(file: string, markdown: string): string[] {
  const lines = markdown.split('\n')
  const cellCount = (line: string) => line.trim().split(/(?<!\\)\|/).length - 2
  const problems: string[] = []
  let fenced = false
  let header: number | undefined
  lines.forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    if (fenced || !line.startsWith('|')) {
      header = undefined
      return
    }
    header ??= cellCount(line)
    if (cellCount(line) !== header)
      problems.push(`${relative(ROOT, file)}:${index + 1} has ${cellCount(line)} cells, its header ${header}`)
  })
  if (fenced) problems.push(`${relative(ROOT, file)}: a code block is never closed`)
  return problems
}

describe('the documentation', () => {
  it('checks the README, docs/, bench/README.md and the SDK READMEs', () => {
    const files = markdownFiles().map((file) => relative(ROOT, file))
    expect(files).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'docs/api.md', 'sdks/python/README.md']))
  })

  it('finds every relative link and #anchor resolving', () => {
    const problems = markdownFiles().flatMap((file) => brokenLinks(file, readFileSync(file, 'utf8')))
    expect(problems).toEqual([])
  })

  it('reports a missing file, a missing heading and a link out of the repository, and not links in code', () => {
    const page = join(ROOT, 'docs', 'page.md')
    const markdown = [
      '# A page',
      '## `GET /v1/prices/{symbol}`',
      '[ok](#get-v1pricessymbol) [ok](../README.md) [gone](nowhere.md) [wrong](#no-such-heading)',
      '[out](../../shared/DESIGN.md) [web](https://example.com/x.md) `[code](nowhere.md)`',
      '```',
      '[fenced](nowhere.md)',
      '```',
    ].join('\n')
    expect(brokenLinks(page, markdown, () => markdown)).toEqual([
      { file: 'docs/page.md', link: 'nowhere.md', problem: 'no such file' },
      { file: 'docs/page.md', link: '#no-such-heading', problem: 'no heading with the anchor #no-such-heading' },
      { file: 'docs/page.md', link: '../../shared/DESIGN.md', problem: 'points outside the repository' },
    ])
  })

  it('reads a link starting with / from the repository root, as GitHub does', () => {
    const page = join(ROOT, 'docs', 'chains', 'page.md')
    const markdown = '[root](/bench/README.md) [gone](/bench/nowhere.md) [out](/../shared/DESIGN.md)'
    expect(brokenLinks(page, markdown)).toEqual([
      { file: 'docs/chains/page.md', link: '/bench/nowhere.md', problem: 'no such file' },
      { file: 'docs/chains/page.md', link: '/../shared/DESIGN.md', problem: 'points outside the repository' },
    ])
  })

  it('slugs headings as GitHub does, numbering repeats', () => {
    const anchors = headingAnchors('# Web pages: portal, status, guide\n## Decisions\n## Decisions\n### `wds index --chain X`')
    expect([...anchors]).toEqual(['web-pages-portal-status-guide', 'decisions', 'decisions-1', 'wds-index---chain-x'])
  })
  it("renders: every table row has its header's cells, every code block is closed", () => {
    const problems = markdownFiles().flatMap((file) => ragged(file, readFileSync(file, 'utf8')))
    expect(problems).toEqual([])
    expect(ragged(join(ROOT, 'x.md'), '| a | b |\n| - | - |\n| `a|b` | c |\n```\n')).toEqual([
      'x.md:3 has 3 cells, its header 2',
      'x.md: a code block is never closed',
    ])
  })
})
