import { describe, expect, it } from 'vitest';
import { EMPTY_PANEL, PANEL_ATTRIBUTE, createPanelHost, renderPanel } from '../src/panel.js';
import { ENGLISH, LMS, SERVICE, asDomWindow, createWindow } from './support.js';

const newDoc = () => asDomWindow(createWindow(`${LMS}/courses/1/quizzes/2/take`, '<main id="content"></main>')).document;
const TOOLS = [
  { id: 'calc', label: 'Calculator', url: 'https://tools.example.edu/calc' },
  { id: 'video', label: 'Intro <video>', url: `${SERVICE}/exb/tool/video/dQw4w9WgXcQ` },
];

describe('renderPanel', () => {
  it('renders nothing for an empty state', () => {
    expect(renderPanel(newDoc(), EMPTY_PANEL, ENGLISH)).toBeNull();
  });

  it('renders tools as a labelled complementary landmark with safe links', () => {
    const doc = newDoc();
    const panel = renderPanel(doc, { ...EMPTY_PANEL, tools: TOOLS }, ENGLISH)!;
    expect(panel.tagName).toBe('ASIDE');
    const heading = panel.querySelector('h2')!;
    expect(panel.getAttribute('aria-labelledby')).toBe(heading.id);
    expect(heading.textContent).toBe('Exam tools');
    const links = Array.from(panel.querySelectorAll('a'));
    expect(links.map((a) => a.getAttribute('href'))).toEqual(TOOLS.map((t) => t.url));
    expect(links.map((a) => a.textContent)).toEqual(['Calculator', 'Intro <video>']);
    for (const a of links) {
      expect(a.getAttribute('rel')?.split(' ')).toContain('noopener');
      expect(a.getAttribute('target')).toBe('_blank');
    }
    expect(panel.querySelector('video')).toBeNull();
  });

  it('renders the exit link after completion', () => {
    const quitUrl = `${SERVICE}/exb/exit/session/1/classicquiz_2/${'E'.repeat(42)}A`;
    const panel = renderPanel(newDoc(), { ...EMPTY_PANEL, tools: TOOLS, quitUrl }, ENGLISH)!;
    expect(panel.querySelector('h2')?.textContent).toBe('Quiz submitted');
    const exit = Array.from(panel.querySelectorAll('a')).find((a) => a.textContent === 'Exit the exam browser');
    expect(exit?.getAttribute('href')).toBe(quitUrl);
    expect(exit?.hasAttribute('target')).toBe(false);
    expect(panel.querySelector('h3')?.textContent).toBe('Exam tools');
  });

  it('renders the exam-browser-required notice: download here, in this browser, with the link to the download', () => {
    const panel = renderPanel(newDoc(), {
      ...EMPTY_PANEL,
      notice: { kind: 'exam-browser-required', setupUrl: `${SERVICE}/exb/quiz/1/classicquiz_2` },
    }, ENGLISH)!;
    expect(panel.querySelector('h2')?.textContent).toBe('Secure exam browser required');
    expect(panel.textContent).toContain('Download its one-time configuration here, in this browser');
    expect(panel.textContent).not.toContain('in the exam browser to continue');
    const link = panel.querySelector('a');
    expect(link?.textContent).toBe('Get the exam browser configuration');
    expect(link?.getAttribute('href')).toBe(`${SERVICE}/exb/quiz/1/classicquiz_2`);
  });

  it('renders the notice that the access code could not be had, asking for a reload', () => {
    const panel = renderPanel(newDoc(), { ...EMPTY_PANEL, notice: { kind: 'redemption-failed' } }, ENGLISH)!;
    expect(panel.querySelector('h2')?.textContent).toBe('Access code not available');
    expect(panel.textContent).toContain('Reload this page to try again.');
    expect(panel.querySelector('a')).toBeNull();
  });

  it('renders the rejected-configuration notice', () => {
    const panel = renderPanel(newDoc(), { ...EMPTY_PANEL, notice: { kind: 'configuration-rejected' } }, ENGLISH)!;
    expect(panel.textContent).toContain('fresh configuration');
  });
});

describe('createPanelHost', () => {
  it('keeps a single panel and removes it when the state empties', () => {
    const doc = newDoc();
    const host = createPanelHost(doc, ENGLISH);
    host.show({ ...EMPTY_PANEL, tools: TOOLS });
    host.show({ ...EMPTY_PANEL, tools: TOOLS.slice(0, 1) });
    expect(doc.querySelectorAll(`[${PANEL_ATTRIBUTE}]`)).toHaveLength(1);
    expect(doc.querySelectorAll(`[${PANEL_ATTRIBUTE}] a`)).toHaveLength(1);
    host.show(EMPTY_PANEL);
    expect(doc.querySelectorAll(`[${PANEL_ATTRIBUTE}]`)).toHaveLength(0);
    expect(doc.getElementById('content')).not.toBeNull();
  });
});

describe('the access code of a new quiz', () => {
  const CODE = 'K7-42xq';
  const codePanel = (doc: Document, copy?: (doc: Document, text: string) => Promise<boolean>) => {
    const host = createPanelHost(doc, ENGLISH);
    host.show({ ...EMPTY_PANEL, accessCode: CODE, tools: TOOLS });
    return { host, panel: () => doc.querySelector(`[${PANEL_ATTRIBUTE}]`) as HTMLElement, copy };
  };
  const button = (panel: HTMLElement, name: string) =>
    Array.from(panel.querySelectorAll('button')).find((b) => b.textContent === name) as HTMLButtonElement;

  it('says where to type it and keeps it masked, to sight and to screen readers, until asked', () => {
    const doc = newDoc();
    const { panel } = codePanel(doc);
    expect(panel().querySelector('h2')?.textContent).toBe('Access code for this quiz');
    expect(panel().textContent).toContain('The quiz on this page asks for an access code in its own area. Type this code there');
    expect(panel().textContent).not.toContain(CODE);
    const value = panel().querySelector('#exb-access-code-value')!;
    expect(value.querySelector('[aria-hidden="true"]')?.textContent).toBe('••••••');
    expect(value.textContent).toContain('hidden');
    const toggle = button(panel(), 'Show the code');
    expect(toggle.getAttribute('type')).toBe('button');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(toggle.getAttribute('aria-controls')).toBe('exb-access-code-value');
    expect(panel().querySelector('h3')?.textContent).toBe('Exam tools');
  });

  it('reveals it on request and announces it through a polite live region, and hides it again', () => {
    const doc = newDoc();
    const { panel } = codePanel(doc);
    const status = panel().querySelector('[role="status"]')!;
    expect(status.getAttribute('aria-live')).toBe('polite');
    expect(status.textContent).toBe('');
    button(panel(), 'Show the code').click();
    expect(panel().querySelector('#exb-access-code-value')?.textContent).toBe(CODE);
    expect(status.textContent).toBe(`The access code is shown: ${CODE}`);
    const hide = button(panel(), 'Hide the code');
    expect(hide.getAttribute('aria-expanded')).toBe('true');
    hide.click();
    expect(panel().textContent).not.toContain(CODE);
    expect(status.textContent).toBe('The access code is hidden again.');
  });

  it('stays revealed, with the focus kept, when the panel is drawn again', () => {
    const doc = newDoc();
    const { host, panel } = codePanel(doc);
    button(panel(), 'Show the code').click();
    button(panel(), 'Hide the code').focus();
    host.show({ ...host.state, tools: [TOOLS[0]!] });
    expect(doc.querySelectorAll(`[${PANEL_ATTRIBUTE}]`)).toHaveLength(1);
    expect(panel().querySelector('#exb-access-code-value')?.textContent).toBe(CODE);
    expect(doc.activeElement?.textContent).toBe('Hide the code');
  });

  it('copies the code and says whether that worked', async () => {
    for (const [worked, said] of [
      [true, 'The access code is copied. Paste it where the quiz asks for it.'],
      [false, 'The code could not be copied here. Show it and type it in.'],
    ] as const) {
      const doc = newDoc();
      const copied: string[] = [];
      const panel = renderPanel(doc, { ...EMPTY_PANEL, accessCode: CODE }, ENGLISH)!;
      doc.body.append(panel);
      // The copy goes through the page's clipboard.
      Object.defineProperty(doc.defaultView!.navigator, 'clipboard', {
        configurable: true,
        value: {
          writeText: async (text: string) => {
            if (!worked) throw new Error('denied');
            copied.push(text);
          },
        },
      });
      (doc as unknown as { execCommand: () => boolean }).execCommand = () => false;
      button(panel, 'Copy the code').click();
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(copied).toEqual(worked ? [CODE] : []);
      expect(panel.querySelector('[role="status"]')?.textContent).toBe(said);
      // Copying does not reveal it.
      expect(panel.textContent).not.toContain(CODE);
    }
  });

  it('leaves the screen once the quiz is submitted', () => {
    const quitUrl = `${SERVICE}/exb/exit/session/1/newquiz:1:2/${'E'.repeat(42)}A`;
    const panel = renderPanel(newDoc(), { ...EMPTY_PANEL, accessCode: CODE, quitUrl }, ENGLISH)!;
    expect(panel.querySelector('[data-exb-access-code]')).toBeNull();
    expect(panel.querySelector('h2')?.textContent).toBe('Quiz submitted');
  });

  it('speaks German on a German page', async () => {
    const { createText } = await import('../src/messages.js');
    const { MESSAGES } = await import('./support.js');
    const doc = newDoc();
    const host = createPanelHost(doc, createText(MESSAGES, 'de'));
    host.show({ ...EMPTY_PANEL, accessCode: CODE });
    const panel = doc.querySelector(`[${PANEL_ATTRIBUTE}]`) as HTMLElement;
    expect(panel.querySelector('h2')?.textContent).toBe('Zugangscode für dieses Quiz');
    button(panel, 'Code anzeigen').click();
    expect(panel.querySelector('[role="status"]')?.textContent).toBe(`Der Zugangscode wird angezeigt: ${CODE}`);
  });
});
