/**
 * The one piece of interface the detector adds to an LMS page: a small complementary landmark with a heading that
 * lists approved tools, the exit link after completion, or a notice. All text goes in as text nodes; URLs come from the
 * service's validated answers or are built from the configuration.
 */
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
}

export const EMPTY_PANEL: PanelState = { tools: [], quitUrl: null, notice: null };

export const PANEL_ATTRIBUTE = 'data-exb-panel';
const HEADING_ID = 'exb-panel-heading';

const PANEL_STYLE = [
  'position:fixed',
  'right:16px',
  'bottom:16px',
  'z-index:2147483000',
  'max-width:320px',
  'max-height:60vh',
  'overflow:auto',
  'box-sizing:border-box',
  'padding:12px 16px',
  'background:#fff',
  'color:#2d3b45',
  'border:1px solid #c7cdd1',
  'border-radius:6px',
  'box-shadow:0 2px 8px rgba(0,0,0,.2)',
  'font:14px/1.4 system-ui,sans-serif',
].join(';');

function element<K extends keyof HTMLElementTagNameMap>(doc: Document, tag: K, text?: string): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

function link(doc: Document, href: string, text: string, newWindow: boolean): HTMLAnchorElement {
  const a = element(doc, 'a', text);
  a.setAttribute('href', href);
  if (newWindow) a.setAttribute('target', '_blank');
  a.setAttribute('rel', 'noopener noreferrer');
  return a;
}

function paragraph(doc: Document, ...children: (string | Node)[]): HTMLParagraphElement {
  const p = element(doc, 'p');
  p.style.margin = '0 0 8px';
  for (const child of children) p.append(child);
  return p;
}

function headingText(state: PanelState): string {
  if (state.notice?.kind === 'exam-browser-required') return 'Secure exam browser required';
  if (state.notice?.kind === 'redemption-failed') return 'Access code not available';
  if (state.quitUrl !== null) return 'Quiz submitted';
  return 'Exam tools';
}

/** The panel for a state, or `null` when there is nothing to show. */
export function renderPanel(doc: Document, state: PanelState): HTMLElement | null {
  if (state.tools.length === 0 && state.quitUrl === null && state.notice === null) return null;

  const panel = element(doc, 'aside');
  panel.setAttribute(PANEL_ATTRIBUTE, '');
  panel.setAttribute('aria-labelledby', HEADING_ID);
  panel.setAttribute('style', PANEL_STYLE);
  const heading = element(doc, 'h2', headingText(state));
  heading.id = HEADING_ID;
  heading.setAttribute('style', 'margin:0 0 8px;font-size:16px');
  panel.append(heading);

  if (state.notice?.kind === 'exam-browser-required') {
    panel.append(
      paragraph(
        doc,
        'This quiz can only be taken in the secure exam browser. Download its one-time configuration here, in this browser: it starts the exam browser with the quiz.',
      ),
    );
    panel.append(paragraph(doc, link(doc, state.notice.setupUrl, 'Get the exam browser configuration', false)));
  } else if (state.notice?.kind === 'configuration-rejected') {
    panel.append(
      paragraph(doc, 'This exam browser configuration does not match this quiz or is out of date. Download a fresh configuration from the course.'),
    );
  } else if (state.notice?.kind === 'redemption-failed') {
    panel.append(
      paragraph(doc, 'The exam service could not provide the access code for this quiz just now. Reload this page to try again.'),
    );
    panel.append(paragraph(doc, 'If this keeps happening, tell your instructor.'));
  } else if (state.notice?.kind === 'access-code-not-accepted') {
    panel.append(
      paragraph(doc, 'The quiz did not accept the access code. Wait a moment and reload this page; if this happens again, ask your instructor.'),
    );
  }

  if (state.quitUrl !== null) {
    panel.append(paragraph(doc, 'Your submission was received.'));
    panel.append(paragraph(doc, link(doc, state.quitUrl, 'Exit the exam browser', false)));
  }

  if (state.tools.length > 0) {
    if (state.quitUrl !== null || state.notice !== null) {
      const sub = element(doc, 'h3', 'Exam tools');
      sub.setAttribute('style', 'margin:8px 0 4px;font-size:14px');
      panel.append(sub);
    }
    const list = element(doc, 'ul');
    list.setAttribute('style', 'margin:0;padding-left:18px');
    for (const tool of state.tools) {
      const item = element(doc, 'li');
      item.append(link(doc, tool.url, tool.label, true));
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

/** Keeps one panel on the page, replacing the element it owns on every change. */
export function createPanelHost(doc: Document): PanelHost {
  let current: HTMLElement | null = null;
  let state = EMPTY_PANEL;
  return {
    get state() {
      return state;
    },
    show(next) {
      state = next;
      const rendered = renderPanel(doc, next);
      if (current !== null && current.parentNode !== null) current.parentNode.removeChild(current);
      current = rendered;
      if (rendered !== null && doc.body !== null) doc.body.append(rendered);
    },
  };
}
