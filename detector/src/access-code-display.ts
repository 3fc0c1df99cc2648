/**
 * The released access code of a new quiz, shown in the panel for the student to type. A new quiz runs in a frame of
 * the new-quiz engine's own origin, so neither the detector nor any script of the LMS page can fill its access-code
 * prompt: the student has to. The code stays masked until the student asks to see it (anyone may look at the screen),
 * can be copied, and its reveal is announced to screen readers through a polite live region. The code lives in this
 * closure and in the DOM only while it is shown; it is never stored.
 */
import type { Text } from './messages.js';

/** What survives the panel being drawn again (the tools refresh): whether the student chose to see the code. */
export interface AccessCodeView {
  revealed: boolean;
}

export const ACCESS_CODE_ATTRIBUTE = 'data-exb-access-code';
const MASK = '••••••';
const CODE_ID = 'exb-access-code-value';
const STATUS_ID = 'exb-access-code-status';

const VISUALLY_HIDDEN = 'position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0';
const BUTTON_STYLE = [
  'min-height:36px',
  'padding:6px 12px',
  'margin:0 8px 8px 0',
  'border:1px solid #0374b5',
  'border-radius:4px',
  'background:#fff',
  'color:#0374b5',
  'font:inherit',
  'cursor:pointer',
].join(';');

/** Copies `text` with the Clipboard API, else with the older selection command; `false` when neither works. */
export async function copyText(doc: Document, text: string): Promise<boolean> {
  const clipboard = doc.defaultView?.navigator?.clipboard;
  if (clipboard !== undefined && typeof clipboard.writeText === 'function') {
    try {
      await clipboard.writeText(text);
      return true;
    } catch {
      // Refused (no permission, no focus): try the selection below.
    }
  }
  const area = doc.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.setAttribute('aria-hidden', 'true');
  area.setAttribute('style', `${VISUALLY_HIDDEN};position:fixed`);
  const active = doc.activeElement as HTMLElement | null;
  doc.body.append(area);
  try {
    area.select();
    return typeof doc.execCommand === 'function' && doc.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
    active?.focus?.();
  }
}

/**
 * The code section: where to type the code, the code (masked or shown), a show/hide button and a copy button, and a
 * live region that says what the buttons did. `copy` is injected for tests.
 */
export function renderAccessCode(
  doc: Document,
  code: string,
  text: Text,
  view: AccessCodeView,
  copy: (doc: Document, text: string) => Promise<boolean> = copyText,
): HTMLElement {
  const section = doc.createElement('section');
  section.setAttribute(ACCESS_CODE_ATTRIBUTE, '');
  section.setAttribute('aria-label', text('accessCodeLabel'));

  const where = doc.createElement('p');
  where.style.margin = '0 0 8px';
  where.textContent = text('accessCodeWhere');
  section.append(where);

  const box = doc.createElement('p');
  box.setAttribute('style', 'margin:0 0 8px;display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 8px');
  const label = doc.createElement('span');
  label.textContent = text('accessCodeLabel');
  label.setAttribute('style', 'font-weight:700');
  const value = doc.createElement('span');
  value.id = CODE_ID;
  value.setAttribute('style', 'font:700 20px/1.3 ui-monospace,monospace;letter-spacing:2px;overflow-wrap:anywhere');
  box.append(label, value);
  section.append(box);

  const toggle = doc.createElement('button');
  toggle.type = 'button';
  toggle.setAttribute('style', BUTTON_STYLE);
  toggle.setAttribute('aria-controls', CODE_ID);
  const copyButton = doc.createElement('button');
  copyButton.type = 'button';
  copyButton.setAttribute('style', BUTTON_STYLE);
  copyButton.textContent = text('accessCodeCopy');
  const actions = doc.createElement('p');
  actions.setAttribute('style', 'margin:0');
  actions.append(toggle, copyButton);
  section.append(actions);

  const status = doc.createElement('p');
  status.id = STATUS_ID;
  status.setAttribute('role', 'status');
  status.setAttribute('aria-live', 'polite');
  status.setAttribute('style', 'margin:0;min-height:1em');
  section.append(status);

  const draw = () => {
    value.replaceChildren();
    if (view.revealed) {
      value.textContent = code;
    } else {
      // The bullets mean nothing read aloud; a screen reader hears that the code is hidden.
      const mask = doc.createElement('span');
      mask.setAttribute('aria-hidden', 'true');
      mask.textContent = MASK;
      const hidden = doc.createElement('span');
      hidden.setAttribute('style', VISUALLY_HIDDEN);
      hidden.textContent = text('accessCodeHidden');
      value.append(mask, hidden);
    }
    toggle.textContent = text(view.revealed ? 'accessCodeHide' : 'accessCodeShow');
    toggle.setAttribute('aria-expanded', String(view.revealed));
  };
  draw();

  toggle.addEventListener('click', () => {
    view.revealed = !view.revealed;
    draw();
    status.textContent = view.revealed ? text('accessCodeRevealed', { code }) : text('accessCodeConcealed');
  });
  copyButton.addEventListener('click', () => {
    void copy(doc, code).then((copied) => {
      status.textContent = text(copied ? 'accessCodeCopied' : 'accessCodeCopyFailed');
    });
  });
  return section;
}
