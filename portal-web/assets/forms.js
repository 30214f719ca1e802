import { ApiError } from './api.js'
import { h, message, sentence } from './dom.js'

let fieldCount = 0

/** A labelled input, with an optional hint tied to it for screen readers. */
export function field({ label, name, type = 'text', hint, ...attributes }) {
  const id = `f${++fieldCount}-${name}`
  const hintId = hint === undefined ? undefined : `${id}-hint`
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    hint === undefined ? null : h('span', { class: 'hint', id: hintId }, hint),
    h('input', { id, name, type, 'aria-describedby': hintId, ...attributes }),
  )
}

/**
 * A form whose submit calls `onSubmit(values)`; while it runs the button is disabled, and a failure is
 * shown above the button (what went wrong, in the words of `explain`), the field it names marked invalid.
 */
export function form({ label, fields, submit, onSubmit, explain = explainError, className = 'card narrow' }) {
  const errors = h('div', { class: 'form-errors' })
  const button = h('button', { type: 'submit' }, submit)
  const element = h('form', { class: className, 'aria-label': label, novalidate: true }, fields, errors, button)
  element.addEventListener('submit', async (event) => {
    event.preventDefault()
    errors.replaceChildren()
    for (const input of element.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid')
    const values = Object.fromEntries(new FormData(element))
    button.disabled = true
    try {
      await onSubmit(values)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      errors.replaceChildren(message('error', explain(error)))
      const input = error.param === undefined ? null : element.querySelector(`[name="${CSS.escape(error.param)}"]`)
      if (input !== null) {
        input.setAttribute('aria-invalid', 'true')
        input.focus()
      }
    } finally {
      button.disabled = false
    }
  })
  return element
}

/** What a failed call means to the person using the page. */
export function explainError(error) {
  switch (error.code) {
    case 'network':
      return sentence(error.message)
    case 'internal':
      return `Something went wrong on the server. Try again; if it keeps failing, quote request id ${error.requestId ?? '(none)'} to the operator.`
    default:
      return sentence(error.message)
  }
}
