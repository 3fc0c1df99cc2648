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
