/**
 * The one piece of interface the detector adds to an LMS page: a small complementary landmark with a heading that
 * lists approved tools, the exit link after completion, or a notice. All text goes in as text nodes; URLs come from the
 * service's validated answers or are built from the configuration.
 */
import { renderAccessCode, type AccessCodeView } from './access-code-display.js';
import type { Text } from './messages.js';
import type { Tool } from './responses.js';

export type Notice =
  /** `setupUrl`: the service page where this browser downloads the assessment's configuration. */
  | { readonly kind: 'exam-browser-required'; readonly setupUrl: string }
  | { readonly kind: 'configuration-rejected' }
  | { readonly kind: 'access-code-not-accepted' }
  | { readonly kind: 'redemption-failed' };

export interface PanelState {
  readonly tools: readonly Tool[];
  readonly quitUrl: string | null;
  readonly notice: Notice | null;
  /** A new quiz's released access code, for the student to type into the engine's frame. */
  readonly accessCode: string | null;
}

export const EMPTY_PANEL: PanelState = { tools: [], quitUrl: null, notice: null, accessCode: null };

export const PANEL_ATTRIBUTE = 'data-exb-panel';
const HEADING_ID = 'exb-panel-heading';

const BASE_STYLE = [
  'box-sizing:border-box',
  'padding:12px 16px',
  'background:#fff',
  'color:#2d3b45',
  'border:1px solid #c7cdd1',
  'border-radius:6px',
  'font:14px/1.4 system-ui,sans-serif',
];
/** In a corner of the window, over the page. */
const FLOATING_STYLE = [
  ...BASE_STYLE,
  'position:fixed',
  'right:16px',
  'bottom:16px',
  'z-index:2147483000',
  'max-width:320px',
  'max-height:60vh',
  'overflow:auto',
  'box-shadow:0 2px 8px rgba(0,0,0,.2)',
].join(';');
/** In the page's flow, before the element it is placed at: it covers nothing the student has to reach. */
const INLINE_STYLE = [...BASE_STYLE, 'margin:0 0 12px', 'max-width:40rem'].join(';');

function element<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, text?: string): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A link; `newWindowName`, for a link that opens a window of its own, is its accessible name saying so. */
function link(doc: Document, href: string, text: string, newWindowName?: string): HTMLAnchorElement {
  const a = element(doc, 'a', text);
  a.setAttribute('href', href);
  if (newWindowName !== undefined) {
    a.setAttribute('target', '_blank');
    a.setAttribute('aria-label', newWindowName);
  }
  a.setAttribute('rel', 'noopener noreferrer');
  return a;
}

function paragraph(doc: Document, ...children: (string | Node)[]): HTMLParagraphElement {
  const p = element(doc, 'p');
  p.style.margin = '0 0 8px';
  for (const child of children) p.append(child);
  return p;
}

function headingText(state: PanelState, text: Text): string {
  if (state.notice?.kind === 'exam-browser-required') return text('requiredHeading');
  if (state.notice?.kind === 'redemption-failed') return text('redemptionFailedHeading');
  if (state.quitUrl !== null) return text('submittedHeading');
  if (state.accessCode !== null) return text('accessCodeHeading');
  return text('toolsHeading');
}

/**
 * The panel for a state in the page's language (`text`), or `null` when there is nothing to show. `codeView` keeps
 * whether the student chose to see the access code across redraws.
 */
export function renderPanel(
  doc: Document,
  state: PanelState,
  text: Text,
  codeView: AccessCodeView = { revealed: false },
  inline = false,
): HTMLElement | null {
  if (state.tools.length === 0 && state.quitUrl === null && state.notice === null && state.accessCode === null) return null;

  const panel = element(doc, 'aside');
  panel.setAttribute(PANEL_ATTRIBUTE, '');
  panel.setAttribute('aria-labelledby', HEADING_ID);
  panel.setAttribute('style', inline ? INLINE_STYLE : FLOATING_STYLE);
  const heading = element(doc, 'h2', headingText(state, text));
  heading.id = HEADING_ID;
  heading.setAttribute('style', 'margin:0 0 8px;font-size:16px');
  panel.append(heading);

  if (state.notice?.kind === 'exam-browser-required') {
    panel.append(paragraph(doc, text('requiredText')));
    panel.append(paragraph(doc, link(doc, state.notice.setupUrl, text('requiredLink'))));
  } else if (state.notice?.kind === 'configuration-rejected') {
    panel.append(paragraph(doc, text('configurationRejected')));
  } else if (state.notice?.kind === 'redemption-failed') {
    panel.append(paragraph(doc, text('redemptionFailedText')));
    panel.append(paragraph(doc, text('redemptionFailedHelp')));
  } else if (state.notice?.kind === 'access-code-not-accepted') {
    panel.append(paragraph(doc, text('accessCodeNotAccepted')));
  }

  if (state.quitUrl !== null) {
    panel.append(paragraph(doc, text('submittedText')));
    panel.append(paragraph(doc, link(doc, state.quitUrl, text('exitLink'))));
  } else if (state.accessCode !== null) {
    panel.append(renderAccessCode(doc, state.accessCode, text, codeView));
  }

  if (state.tools.length > 0) {
    if (state.quitUrl !== null || state.notice !== null || state.accessCode !== null) {
      const sub = element(doc, 'h3', text('toolsHeading'));
      sub.setAttribute('style', 'margin:8px 0 4px;font-size:14px');
      panel.append(sub);
    }
    const list = element(doc, 'ul');
    list.setAttribute('style', 'margin:0;padding-left:18px');
    for (const tool of state.tools) {
      const item = element(doc, 'li');
      item.append(link(doc, tool.url, tool.label, text('toolOpensNewWindow', { label: tool.label })));
      list.append(item);
    }
    panel.append(list);
  }
  return panel;
}

export interface PanelHost {
  show(state: PanelState): void;
  readonly state: PanelState;
}

/** The position of `node` among the panel's buttons and links, so a redraw can give focus back to its twin. */
function focusIndex(panel: HTMLElement, node: Element | null): number {
  if (node === null || !panel.contains(node)) return -1;
  return Array.from(panel.querySelectorAll('button, a')).indexOf(node);
}

/**
 * Keeps one panel on the page, replacing the element it owns on every change. A keyboard or screen-reader user whose
 * focus was on a control of the panel keeps it on the same control of the new one. With `before`, the panel stands in
 * the page's flow right before that element (a new quiz's tool frame, whose prompt a floating panel would cover in a
 * narrow window); otherwise it floats in a corner.
 */
export function createPanelHost(doc: Document, text: Text, before: Element | null = null): PanelHost {
  let current: HTMLElement | null = null;
  let state = EMPTY_PANEL;
  const codeView: AccessCodeView = { revealed: false };
  return {
    get state() {
      return state;
    },
    show(next) {
      state = next;
      const anchor = before !== null && before.parentNode !== null ? before : null;
      const rendered = renderPanel(doc, next, text, codeView, anchor !== null);
      const focused = current === null ? -1 : focusIndex(current, doc.activeElement);
      if (current !== null && current.parentNode !== null) current.parentNode.removeChild(current);
      current = rendered;
      if (rendered !== null && (anchor !== null || doc.body !== null)) {
        if (anchor !== null) anchor.parentNode!.insertBefore(rendered, anchor);
        else doc.body.append(rendered);
        if (focused >= 0) (rendered.querySelectorAll('button, a')[focused] as HTMLElement | undefined)?.focus();
      }
    },
  };
}
