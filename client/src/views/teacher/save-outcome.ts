import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useAnnouncer } from '../../components/Announcer';
import { readServerError } from '../../lib/trpc';
import { locateError, useFieldFocus, type FormError, type SectionName, type Submission } from '../../lib/form-errors';

type MessageState = readonly [string | null, (message: string | null) => void];

/** What an editor form saves: an assessment's settings or the course defaults. */
export type SaveSubject = 'settings' | 'defaults';

/**
 * The outcome of an editor form's last save: the server's confirmation, or the refusal placed next to the field or
 * section it is about, announced, with the focus moved there. `subject` names what was not saved. A form that is started again after each save keeps the confirmation in its parent and passes it as
 * `saved`, so it outlasts the form it came from.
 */
export function useSaveOutcome(subject: SaveSubject, options: { fallbackSection?: SectionName; saved?: MessageState } = {}) {
  const { t } = useTranslation('teacher');
  const focus = useFieldFocus();
  const [announcement, announce] = useAnnouncer();
  const [formError, setFormError] = useState<FormError | null>(null);
  const ownMessage = useState<string | null>(null);
  const [saved, setSaved] = options.saved ?? ownMessage;
  /** What the pending save sent, so the indices of a refusal's path lead back to the rows on screen. */
  const submission = useRef<Submission>({});
  /** A save starts: what the last one said no longer applies. */
  const start = () => {
    setFormError(null);
    setSaved(null);
  };
  // The field a refusal is about may appear only with the render that shows it (a folded tool opens), so the focus
  // moves once that render is on screen; a new object per refusal moves it again for a repeated one.
  const [focusRequest, setFocusRequest] = useState<{ key: string | undefined } | null>(null);
  const focusField = focus.focus;
  useEffect(() => {
    if (focusRequest !== null) focusField(focusRequest.key);
  }, [focusRequest, focusField]);
  const show = (refusal: FormError) => {
    setFormError(refusal);
    announce(t(`save.refusedAnnouncement.${subject}`, { reason: refusal.message }), 'assertive');
    setFocusRequest({ key: refusal.key });
  };
  const refuse = (error: unknown) => {
    const refusal = readServerError(error);
    // A refusal that asks to authorize again is answered by the connection prompt, not by the form.
    if (refusal.authUrl !== undefined) return;
    show(locateError(refusal, submission.current, options.fallbackSection));
  };
  /** A refusal by a rule the form applies before sending anything: shown at the field `key`, like the server's. */
  const refuseHere = (key: string, message: string) => {
    setSaved(null);
    show({ key, message, errorCode: undefined });
  };
  /** The teacher changed what a refusal was about (a rule became a site, the list another one): it no longer applies. */
  const withdraw = (keys: readonly string[]) => {
    setFormError((current) => (current !== null && current.key !== undefined && keys.includes(current.key) ? null : current));
  };
  return { focus, announcement, announce, formError, setFormError, saved, setSaved, submission, start, refuse, refuseHere, withdraw };
}
