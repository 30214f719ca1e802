// A copy button beside each example of the guide.
import { copyButton } from './dom.js'

for (const pre of document.querySelectorAll('pre[data-example]')) {
  pre.after(copyButton(pre.textContent, 'Copy command'))
}
