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
import { useTranslation } from 'react-i18next';
import { errorCodeMessage, readServerError, useTRPC } from '../../lib/trpc';
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
  const { t } = useTranslation(['teacher', 'common']);
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
    <Modal open onDismiss={onClose} size="medium" label={t('copy.label', { tool: tool.label })} shouldCloseOnDocumentClick={false}>
      <Modal.Header>
        <CloseButton placement="end" offset="small" onClick={onClose} screenReaderLabel={t('action.close')} />
        <Heading level="h2">{t('copy.heading', { tool: tool.label })}</Heading>
      </Modal.Header>
      <Modal.Body>
        {serverError?.authUrl !== undefined ? (
          <ConnectPrompt compact />
        ) : serverError !== null ? (
          <Alert variant="error" variantScreenReaderLabel={t('common:variant.error')} hasShadow={false} margin="0 0 small">
            {serverError.message}
          </Alert>
        ) : null}
        {result !== undefined ? (
          <CopyOutcome result={result} />
        ) : targets.isPending ? (
          <View as="div" textAlign="center" padding="medium">
            <Spinner renderTitle={t('copy.loading')} size="small" />
          </View>
        ) : targets.isSuccess && courses.length === 0 ? (
          <Text as="p">{t('copy.noCourses')}</Text>
        ) : targets.isSuccess ? (
          <>
            <Text as="p">{t('copy.explanation')}</Text>
            <CheckboxGroup
              name="copy-targets"
              description={t('copy.courses')}
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
            {t('action.done')}
          </Button>
        ) : (
          <>
            <Button onClick={onClose} margin="0 x-small 0 0">
              {t('action.cancel')}
            </Button>
            <Button
              color="primary"
              onClick={() => {
                if (!copy.isPending) copy.mutate({ courseId: scope.courseId, toolId: tool.id, courseIds: selected });
              }}
              interaction={selected.length === 0 ? 'disabled' : 'enabled'}
            >
              {copy.isPending ? t('copy.copying') : selected.length === 0 ? t('copy.toCourses') : t('copy.toCount', { count: selected.length })}
            </Button>
          </>
        )}
      </Modal.Footer>
    </Modal>
  );
}

function CopyOutcome({ result }: { result: CopyResult }) {
  const { t } = useTranslation('teacher');
  const groups = [
    { key: 'copied', title: t('copy.copied'), entries: result.copied, variant: 'success' as const },
    { key: 'alreadyPresent', title: t('copy.alreadyPresent'), entries: result.alreadyPresent, variant: 'info' as const },
    { key: 'failed', title: t('copy.failed'), entries: result.failed, variant: 'error' as const },
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
                    {('error_code' in entry ? errorCodeMessage(entry.error_code) : undefined) ?? entry.message}
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
