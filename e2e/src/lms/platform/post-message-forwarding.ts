import type { LmsCore } from '../context.js';
import { scriptJson } from '../pages/html.js';

/**
 * The LMS's platform storage for tools (1EdTech "LTI Client Side postMessages": `lti.capabilities`, `lti.put_data`,
 * `lti.get_data`), as Canvas implements it:
 *
 * - The page hosting a tool also holds a hidden sibling frame named `post_message_forwarding` (the value of
 *   `lti_storage_target` in the login and the launch) on the origin of the OIDC authorization endpoint. Canvas:
 *   `app/controllers/lti/platform_storage_controller.rb` and the frame in the tool page layout.
 * - That frame forwards a tool's message to the page, adding `sourceToolInfo` (the tool's origin and a window number),
 *   and the page's answer back to that tool window at the tool's origin. Canvas:
 *   `ui/features/post_message_forwarding/index.ts`.
 * - The page answers `lti.capabilities` with the supported subjects (storage subjects through that frame), and keeps
 *   `lti.put_data` values in its `localStorage` under `lti|platform_storage|<tool origin>|<key>`, at most 500 keys and
 *   4096 characters per tool and page; `lti.put_data` without a value clears the key, `lti.get_data` answers the value
 *   or `null`. Answers carry the subject with `.response` and the message's `message_id`; a missing `key` or
 *   `message_id` is answered with the error `bad_request`. Canvas: `ui/shared/lti/jquery/messages.ts`,
 *   `response_messages.ts`, `platform_storage.ts`, `subjects/lti.capabilities.ts`, `subjects/lti.put_data.ts`,
 *   `subjects/lti.get_data.ts`.
 *
 * Here the OIDC authorization endpoint is on the LMS's own origin, so the frame is too.
 */

/** The frame name the LMS sends as `lti_storage_target`. */
export const PLATFORM_STORAGE_TARGET = 'post_message_forwarding';
export const POST_MESSAGE_FORWARDING_PATH = '/post_message_forwarding';

/** The forwarding frame's script: `ui/features/post_message_forwarding/index.ts`, for a parent of the same origin. */
export function forwardingScript(parentOrigin: string): string {
  return `(function () {
  var parentOrigin = ${scriptJson(parentOrigin)};
  var windows = [];
  window.addEventListener('message', function (event) {
    var message = event.data;
    if (typeof message === 'string') { try { message = JSON.parse(message); } catch (e) { return; } }
    if (message === null || typeof message !== 'object') return;
    if (event.origin === parentOrigin && event.source === window.parent) {
      // LMS -> tool: to the window the message came from, at its origin.
      var info = message.sourceToolInfo;
      if (!info) return;
      var answer = Object.assign({}, message);
      delete answer.sourceToolInfo;
      var target = windows[info.windowId];
      if (target) target.postMessage(answer, info.origin);
    } else {
      // tool -> LMS: remember the window by number, as a window cannot travel inside a message.
      var windowId = windows.indexOf(event.source);
      if (windowId === -1) { windows.push(event.source); windowId = windows.length - 1; }
      window.parent.postMessage(Object.assign({}, message, { sourceToolInfo: { origin: event.origin, windowId: windowId } }), parentOrigin);
    }
  });
})();`;
}

/** The hosting page's listener for the storage subjects. */
function storageListenerScript(ownOrigin: string): string {
  return `(function () {
  var ownOrigin = ${scriptJson(ownOrigin)};
  var CHAR_LIMIT = 4096, KEY_LIMIT = 500;
  var limits = {};
  var subjects = ['lti.capabilities', 'lti.get_data', 'lti.put_data'];
  function storageKey(tool, key) { return 'lti|platform_storage|' + tool + '|' + key; }
  window.addEventListener('message', function (event) {
    var message = event.data;
    if (typeof message === 'string') { try { message = JSON.parse(message); } catch (e) { return; } }
    if (message === null || typeof message !== 'object') return;
    var subject = message.subject;
    if (subjects.indexOf(subject) === -1) return;
    // Only the forwarding frame (this origin) may name the tool a message comes from.
    var forwarded = event.origin === ownOrigin && message.sourceToolInfo;
    var tool = forwarded ? message.sourceToolInfo.origin : event.origin;
    function respond(contents) {
      var answer = Object.assign({ subject: subject + '.response' }, message.message_id ? { message_id: message.message_id } : {}, contents);
      if (forwarded) answer.sourceToolInfo = message.sourceToolInfo;
      event.source.postMessage(answer, event.origin);
    }
    function error(code, text) { respond({ error: text ? { code: code, message: text } : { code: code } }); }
    if (subject === 'lti.capabilities') {
      respond({ supported_messages: subjects.map(function (s) { return s === 'lti.capabilities' ? { subject: s } : { subject: s, frame: ${scriptJson(PLATFORM_STORAGE_TARGET)} }; }) });
      return;
    }
    if (!message.key) return error('bad_request', "Missing required 'key' field");
    if (!message.message_id) return error('bad_request', "Missing required 'message_id' field");
    var limit = limits[tool] || (limits[tool] = { keyCount: 0, charCount: 0 });
    var name = storageKey(tool, message.key);
    if (subject === 'lti.get_data') return respond({ key: message.key, value: window.localStorage.getItem(name) });
    if (message.value) {
      var length = message.key.length + message.value.length;
      if (limit.keyCount >= KEY_LIMIT) return error('storage_exhaustion', 'Reached key limit for tool');
      if (limit.charCount + length > CHAR_LIMIT) return error('storage_exhaustion', 'Reached byte limit for tool');
      limit.keyCount++; limit.charCount += length;
      window.localStorage.setItem(name, message.value);
      return respond({ key: message.key, value: message.value });
    }
    var old = window.localStorage.getItem(name);
    if (old) {
      limit.keyCount = Math.max(0, limit.keyCount - 1);
      limit.charCount = Math.max(0, limit.charCount - message.key.length - old.length);
      window.localStorage.removeItem(name);
    }
    respond({ key: message.key });
  });
})();`;
}

/** What a page hosting a tool adds: the hidden forwarding frame and the storage listener (nothing without storage). */
export function platformStorageMarkup(lms: LmsCore): string {
  if (!lms.settings.platformStorage) return '';
  return (
    `<iframe src="${POST_MESSAGE_FORWARDING_PATH}" name="${PLATFORM_STORAGE_TARGET}" id="${PLATFORM_STORAGE_TARGET}" ` +
    `title="${PLATFORM_STORAGE_TARGET}" sandbox="allow-scripts allow-same-origin" style="display:none"></iframe>\n` +
    `<script>${storageListenerScript(new URL(lms.baseUrl).origin)}</script>`
  );
}
