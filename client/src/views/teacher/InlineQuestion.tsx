import { Button } from '@instructure/ui';
import { useEffect, useRef, useState } from 'react';

/**
 * A confirmation asked in place: the question replaces the button that asked it, and the other way round once it is
 * answered. The focus follows each swap, so keyboard and screen-reader users stay where they were acting instead of
 * falling back to the top of the page.
 */
export function useInlineQuestion() {
  const [asking, setAsking] = useState(false);
  const askButton = useRef<HTMLElement | null>(null);
  const answerButton = useRef<HTMLElement | null>(null);
  const answered = useRef(false);
  useEffect(() => {
    if (asking) answerButton.current?.focus();
    else if (answered.current) askButton.current?.focus();
  }, [asking]);
  return {
    asking,
    ask: () => setAsking(true),
    /** The question is answered (or given up): the button that asks it comes back, with the focus. */
    close: () => {
      answered.current = true;
      setAsking(false);
    },
    /** For `elementRef` of the button that asks. */
    askRef: (element: Element | null) => void (askButton.current = element as HTMLElement | null),
    /** For `elementRef` of the question's first answer, which takes the focus when the question appears. */
    answerRef: (element: Element | null) => void (answerButton.current = element as HTMLElement | null),
  };
}

/**
 * The two answers of an inline question: the first acts (once; a press while `pending` is ignored) and takes the focus
 * when the question appears, the second gives the question up.
 */
export function QuestionAnswers({
  question,
  labels,
  pending,
  onAct,
}: {
  question: ReturnType<typeof useInlineQuestion>;
  /** The first answer, the same while it acts, and the second answer. */
  labels: { act: string; acting: string; giveUp: string };
  pending: boolean;
  onAct: () => void;
}) {
  return (
    <>
      <Button
        color="danger"
        size="small"
        onClick={() => {
          if (!pending) onAct();
        }}
        elementRef={question.answerRef}
      >
        {pending ? labels.acting : labels.act}
      </Button>
      <Button size="small" onClick={question.close}>
        {labels.giveUp}
      </Button>
    </>
  );
}
