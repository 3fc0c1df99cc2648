import {
  Alert,
  Button,
  Checkbox,
  CheckboxGroup,
  CloseButton,
  Heading,
  List,
  Modal,
  Spinner,
  Text,
  View,
} from '@instructure/ui';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { readServerError, useTRPC } from '../../lib/trpc';
import { ConnectPrompt } from './connection';
import type { CopyResult, CopyTarget, CourseScope } from './model';

function courseName(course: Pick<CopyTarget, 'name' | 'courseCode'>): string {
  return course.courseCode ? `${course.name} (${course.courseCode})` : course.name;
}

/**
 * Copies one of the course's own exam tools into other courses the teacher teaches. The list comes from the LMS as it
 * is now (the server checks it again before writing), and the outcome is shown per course.
 */
export function CopyToolDialog({ scope, tool, onClose }: { scope: CourseScope; tool: { id: string; label: string }; onClose: () => void }) {
  const trpc = useTRPC();
  const [selected, setSelected] = useState<string[]>([]);
  const targets = useQuery({
    ...trpc.instructor.examTools.copyTargets.queryOptions({ courseId: scope.courseId, toolId: tool.id }),
    // The teacher's courses change in the LMS, not here; each opening asks again.
    staleTime: 0,
    gcTime: 0,
  });
  const copy = useMutation(trpc.instructor.examTools.copy.mutationOptions());
  const result = copy.data;
  const doneButton = useRef<HTMLElement | null>(null);
  // The copy button is gone once the outcome is shown; its replacement takes the focus.
  useEffect(() => {
    if (result !== undefined) doneButton.current?.focus();
  }, [result]);
  const refusal = targets.error ?? copy.error;
  const serverError = refusal ? readServerError(refusal) : null;
  const courses = targets.data?.courses ?? [];

  return (
    <Modal open onDismiss={onClose} size="medium" label={`Copy ${tool.label} to other courses`} shouldCloseOnDocumentClick={false}>
      <Modal.Header>
        <CloseButton placement="end" offset="small" onClick={onClose} screenReaderLabel="Close" />
        <Heading level="h2">Copy “{tool.label}” to other courses</Heading>
      </Modal.Header>
      <Modal.Body>
        {serverError?.authUrl !== undefined ? (
          <ConnectPrompt compact />
        ) : serverError !== null ? (
          <Alert variant="error" variantScreenReaderLabel="Error," hasShadow={false} margin="0 0 small">
            {serverError.message}
          </Alert>
        ) : null}
        {result !== undefined ? (
          <CopyOutcome result={result} />
        ) : targets.isPending ? (
          <View as="div" textAlign="center" padding="medium">
            <Spinner renderTitle="Loading your courses" size="small" />
          </View>
        ) : targets.isSuccess && courses.length === 0 ? (
          <Text as="p">You teach no other course in the LMS that the tool could be copied to.</Text>
        ) : targets.isSuccess ? (
          <>
            <Text as="p">
              The tool is added to the exam tools of each course you choose. A course that already has the same tool
              keeps it as it is.
            </Text>
            <CheckboxGroup
              name="copy-targets"
              description="Courses you teach"
              value={selected}
              onChange={(values) => setSelected(values.map(String))}
            >
              {courses.map((course) => (
                <Checkbox key={course.courseId} value={course.courseId} label={courseName(course)} />
              ))}
            </CheckboxGroup>
          </>
        ) : null}
      </Modal.Body>
      <Modal.Footer>
        {result !== undefined ? (
          <Button color="primary" onClick={onClose} elementRef={(element) => void (doneButton.current = element as HTMLElement | null)}>
            Done
          </Button>
        ) : (
          <>
            <Button onClick={onClose} margin="0 x-small 0 0">
              Cancel
            </Button>
            <Button
              color="primary"
              onClick={() => {
                if (!copy.isPending) copy.mutate({ courseId: scope.courseId, toolId: tool.id, courseIds: selected });
              }}
              interaction={selected.length === 0 ? 'disabled' : 'enabled'}
            >
              {copy.isPending
                ? 'Copying…'
                : `Copy to ${selected.length === 0 ? 'courses' : `${selected.length} course${selected.length === 1 ? '' : 's'}`}`}
            </Button>
          </>
        )}
      </Modal.Footer>
    </Modal>
  );
}

function CopyOutcome({ result }: { result: CopyResult }) {
  const groups = [
    { key: 'copied', title: 'Copied to', entries: result.copied, variant: 'success' as const },
    { key: 'alreadyPresent', title: 'Already there', entries: result.alreadyPresent, variant: 'info' as const },
    { key: 'failed', title: 'Not copied', entries: result.failed, variant: 'error' as const },
  ].filter((group) => group.entries.length > 0);
  return (
    <View as="div" role="status">
      {groups.map((group) => (
        <View key={group.key} as="section" display="block" margin="0 0 small" aria-labelledby={`copy-${group.key}`}>
          <Heading level="h3" id={`copy-${group.key}`} margin="0 0 xx-small">
            {group.title}
          </Heading>
          <List margin="0">
            {group.entries.map((entry) => (
              <List.Item key={entry.courseId}>
                {courseName(entry)}
                {'message' in entry && typeof entry.message === 'string' && (
                  <Text as="div" size="small" color={group.variant === 'error' ? 'danger' : 'secondary'}>
                    {entry.message}
                  </Text>
                )}
              </List.Item>
            ))}
          </List>
        </View>
      ))}
    </View>
  );
}
