/**
 * The script of the login and launch pages that use the LMS's platform storage (`pages/platform-storage-pages.ts`),
 * served as `/lti/platform-storage.js` because the pages' CSP allows no inline script. It is written here as a function
 * so that the compiler checks it; its source text is what the browser runs, and it uses nothing from outside itself.
 *
 * The messages follow the 1EdTech client-side postMessages: each carries a `message_id`, goes to the frame the LMS
 * named (`lti_storage_target`; `_parent` means the parent window) with the LMS's OIDC origin as target origin, and its
 * answer is the subject with `.response`, the same `message_id`, from that origin. A message without an answer within
 * a few seconds counts as unanswered: the login page then goes on (the cookie may still work), the launch page posts
 * empty values (the service then refuses the launch, naming the missing browser binding).
 */
/** The little of the browser the script uses, typed here: the server is compiled without the DOM's declarations. */
interface PageWindow {
  readonly parent: PageWindow;
  readonly frames: Record<string, PageWindow | undefined>;
  readonly document: { getElementById(id: string): PageElement | null };
  readonly location: { replace(url: string): void };
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(id: number): void;
  addEventListener(type: 'message', listener: (event: { origin: string; data: unknown }) => void): void;
  removeEventListener(type: 'message', listener: (event: { origin: string; data: unknown }) => void): void;
  postMessage(message: unknown, targetOrigin: string): void;
}
interface PageElement {
  readonly textContent: string | null;
  readonly elements: { namedItem(name: string): { value: string } | null };
  submit(): void;
}

function platformStorageClient(): void {
  type Config = {
    target: string;
    platformOrigin: string;
    put?: Array<{ key: string; value: string }>;
    next?: string;
    get?: { stateKey: string; nonceKey: string };
  };
  type Answer = { subject?: unknown; message_id?: unknown; value?: unknown; error?: unknown };
  const ANSWER_TIMEOUT_MS = 3000;
  const window = globalThis as unknown as PageWindow;
  const element = window.document.getElementById('exb-platform-storage');
  if (element === null) return;
  const config = JSON.parse(element.textContent ?? '{}') as Config;
  const parentWindow = window.parent;
  let frame: PageWindow | null = null;
  try {
    frame = config.target === '_parent' ? parentWindow : (parentWindow.frames[config.target] ?? null);
  } catch {
    frame = null;
  }
  // A top-level page has itself as parent: there is no LMS to ask.
  const usable = frame !== null && frame !== window && parentWindow !== window;
  let counter = 0;

  function send(subject: string, fields: Record<string, string>): Promise<Answer | null> {
    if (!usable || frame === null) return Promise.resolve(null);
    const target = frame;
    counter += 1;
    const messageId = `exb-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2)}`;
    return new Promise((resolve) => {
      const timer = window.setTimeout(() => finish(null), ANSWER_TIMEOUT_MS);
      function listener(event: { origin: string; data: unknown }): void {
        const data = event.data as Answer | null;
        if (event.origin !== config.platformOrigin || data === null || typeof data !== 'object') return;
        if (data.subject !== `${subject}.response` || data.message_id !== messageId) return;
        finish(data);
      }
      function finish(answer: Answer | null): void {
        window.clearTimeout(timer);
        window.removeEventListener('message', listener);
        resolve(answer);
      }
      window.addEventListener('message', listener);
      try {
        target.postMessage({ subject, message_id: messageId, ...fields }, config.platformOrigin);
      } catch {
        finish(null);
      }
    });
  }

  async function read(key: string): Promise<string> {
    const answer = await send('lti.get_data', { key });
    return answer !== null && answer.error === undefined && typeof answer.value === 'string' ? answer.value : '';
  }

  async function putAndGoOn(put: NonNullable<Config['put']>, next: string): Promise<void> {
    for (const entry of put) await send('lti.put_data', entry);
    window.location.replace(next);
  }

  async function readAndPost(get: NonNullable<Config['get']>): Promise<void> {
    const form = window.document.getElementById('exb-launch-form');
    if (form === null) return;
    const state = await read(get.stateKey);
    const nonce = await read(get.nonceKey);
    // The entries served their one launch; clearing them also frees the LMS's storage quota for this tool.
    await Promise.all([send('lti.put_data', { key: get.stateKey }), send('lti.put_data', { key: get.nonceKey })]);
    const [stateField, nonceField] = [form.elements.namedItem('lti_storage_state'), form.elements.namedItem('lti_storage_nonce')];
    if (stateField !== null) stateField.value = state;
    if (nonceField !== null) nonceField.value = nonce;
    form.submit();
  }

  if (config.put !== undefined && config.next !== undefined) void putAndGoOn(config.put, config.next);
  else if (config.get !== undefined) void readAndPost(config.get);
}

/** The script's source as served. */
export const PLATFORM_STORAGE_SCRIPT = `(${platformStorageClient.toString()})();\n`;
